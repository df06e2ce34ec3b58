# Wrong on purpose (e^x without subtracting the max): the test expects the diagnosis "no-max-shift".
import numpy as np


def causal_mask(n):
    return np.triu(np.full((n, n), -np.inf), k=1)


def padding_mask(keep, n):
    row = np.where(np.asarray(keep) > 0, 0.0, -np.inf)
    return np.tile(row, (n, 1))


def masked_softmax(S, M):
    S = S + M
    e = np.exp(S)
    return e / e.sum(axis=-1, keepdims=True)
