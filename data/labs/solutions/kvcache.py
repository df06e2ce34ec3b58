# The kvcache lab's solution (attend lab solution kvcache shows it).
import numpy as np


def decode_step(cache, q, k, v):
    cache.setdefault("K", []).append(k)
    cache.setdefault("V", []).append(v)
    K, V = np.array(cache["K"]), np.array(cache["V"])
    s = K @ q / np.sqrt(q.shape[0])
    e = np.exp(s - s.max())
    return (e / e.sum()) @ V
