# Wrong on purpose (no 1/sqrt(d_k)): the test expects the diagnosis "no-scale".
import numpy as np


def decode_step(cache, q, k, v):
    cache.setdefault("K", []).append(k)
    cache.setdefault("V", []).append(v)
    K, V = np.array(cache["K"]), np.array(cache["V"])
    s = K @ q
    e = np.exp(s - s.max())
    return (e / e.sum()) @ V
