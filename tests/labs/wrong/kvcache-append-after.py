# Wrong on purpose (attends before appending its own key and value): the test expects the diagnosis "append-after".
import numpy as np


def decode_step(cache, q, k, v):
    K, V = np.array(cache.get("K", [])), np.array(cache.get("V", []))
    cache.setdefault("K", []).append(k)
    cache.setdefault("V", []).append(v)
    if len(K) == 0:
        return np.zeros_like(v)
    s = K @ q / np.sqrt(q.shape[0])
    e = np.exp(s - s.max())
    return (e / e.sum()) @ V
