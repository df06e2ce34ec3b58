# Wrong on purpose (the mask never added): the test expects the diagnosis "mask-ignored".
import numpy as np


def causal_mask(n):
    return np.triu(np.full((n, n), -np.inf), k=1)


def padding_mask(keep, n):
    row = np.where(np.asarray(keep) > 0, 0.0, -np.inf)
    return np.tile(row, (n, 1))


def masked_softmax(S, M):
    mx = np.max(S, axis=-1, keepdims=True)
    mx = np.where(np.isfinite(mx), mx, 0.0)
    e = np.exp(S - mx)
    s = e.sum(axis=-1, keepdims=True)
    return np.divide(e, s, out=np.zeros_like(e), where=s > 0)
