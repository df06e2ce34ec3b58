# Wrong on purpose (a fully masked row gives NaN): the test expects the diagnosis "masked-row-nan".
import numpy as np


def causal_mask(n):
    return np.triu(np.full((n, n), -np.inf), k=1)


def padding_mask(keep, n):
    row = np.where(np.asarray(keep) > 0, 0.0, -np.inf)
    return np.tile(row, (n, 1))


def masked_softmax(S, M):
    S = S + M
    mx = np.max(S, axis=-1, keepdims=True)
    e = np.exp(S - mx)
    s = e.sum(axis=-1, keepdims=True)
    return e / s
