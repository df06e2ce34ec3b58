# Wrong on purpose (the softmax over the wrong axis of a (1, t) row): the test expects the diagnosis "softmax-axis".
import numpy as np


def decode_step(cache, q, k, v):
    cache.setdefault("K", []).append(k)
    cache.setdefault("V", []).append(v)
    K, V = np.array(cache["K"]), np.array(cache["V"])
    s = q[None, :] @ K.T / np.sqrt(q.shape[0])
    e = np.exp(s - s.max(axis=0, keepdims=True))
    return ((e / e.sum(axis=0, keepdims=True)) @ V)[0]
