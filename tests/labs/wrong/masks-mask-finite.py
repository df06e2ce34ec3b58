# Wrong on purpose (-1e9 in the builders where -inf belongs): the test expects the diagnosis "mask-finite".
import numpy as np


def causal_mask(n):
    return np.triu(np.full((n, n), -1e9), k=1)


def padding_mask(keep, n):
    row = np.where(np.asarray(keep) > 0, 0.0, -1e9)
    return np.tile(row, (n, 1))


def masked_softmax(S, M):
    S = S + M
    mx = np.max(S, axis=-1, keepdims=True)
    mx = np.where(np.isfinite(mx), mx, 0.0)
    e = np.exp(S - mx)
    s = e.sum(axis=-1, keepdims=True)
    return np.divide(e, s, out=np.zeros_like(e), where=s > 0)
