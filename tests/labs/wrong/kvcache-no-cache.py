# Wrong on purpose (nothing kept between steps): the test expects the diagnosis "no-cache".
import numpy as np


def decode_step(cache, q, k, v):
    cache.setdefault("K", []).append(k)
    cache.setdefault("V", []).append(v)
    K, V = k[None, :], v[None, :]
    s = K @ q / np.sqrt(q.shape[0])
    e = np.exp(s - s.max())
    return (e / e.sum()) @ V
