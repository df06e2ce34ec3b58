# Wrong on purpose (the oldest token sliced off): the test expects the diagnosis "cache-drops-first".
import numpy as np


def decode_step(cache, q, k, v):
    cache.setdefault("K", []).append(k)
    cache.setdefault("V", []).append(v)
    K, V = np.array(cache["K"]), np.array(cache["V"])
    if len(K) > 1:
        K, V = K[1:], V[1:]
    s = K @ q / np.sqrt(q.shape[0])
    e = np.exp(s - s.max())
    return (e / e.sum()) @ V
