# Wrong on purpose (0 where -inf belongs): the test expects the diagnosis "mask-zero".
import numpy as np


def causal_mask(n):
    return np.zeros((n, n))


def padding_mask(keep, n):
    row = np.zeros(len(keep))
    return np.tile(row, (n, 1))


def masked_softmax(S, M):
    S = np.where(np.isinf(M), 0.0, S)
    mx = np.max(S, axis=-1, keepdims=True)
    mx = np.where(np.isfinite(mx), mx, 0.0)
    e = np.exp(S - mx)
    s = e.sum(axis=-1, keepdims=True)
    return np.divide(e, s, out=np.zeros_like(e), where=s > 0)
