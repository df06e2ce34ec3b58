# Wrong on purpose (divided by sqrt(d_v)): the test expects the diagnosis "scale-d-v".
import numpy as np


def decode_step(cache, q, k, v):
    cache.setdefault("K", []).append(k)
    cache.setdefault("V", []).append(v)
    K, V = np.array(cache["K"]), np.array(cache["V"])
    s = K @ q / np.sqrt(v.shape[0])
    e = np.exp(s - s.max())
    return (e / e.sum()) @ V
