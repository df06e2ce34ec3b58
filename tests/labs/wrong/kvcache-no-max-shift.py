# Wrong on purpose (e^x without subtracting the max): the test expects the diagnosis "no-max-shift".
import numpy as np


def decode_step(cache, q, k, v):
    cache.setdefault("K", []).append(k)
    cache.setdefault("V", []).append(v)
    K, V = np.array(cache["K"]), np.array(cache["V"])
    s = K @ q / np.sqrt(q.shape[0])
    e = np.exp(s)
    return (e / e.sum()) @ V
