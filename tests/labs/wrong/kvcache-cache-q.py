# Wrong on purpose (the queries cached instead of the keys): the test expects the diagnosis "cache-q".
import numpy as np


def decode_step(cache, q, k, v):
    cache.setdefault("K", []).append(q)
    cache.setdefault("V", []).append(v)
    K, V = np.array(cache["K"]), np.array(cache["V"])
    s = K @ q / np.sqrt(q.shape[0])
    e = np.exp(s - s.max())
    return (e / e.sum()) @ V
