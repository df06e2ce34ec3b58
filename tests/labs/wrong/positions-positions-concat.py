# Wrong on purpose (sin in the first half, cos in the second): the test expects the diagnosis "positions-concat".
import numpy as np


def self_attention(X, Wq, Wk, Wv):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    S = Q @ K.T / np.sqrt(Q.shape[1])
    e = np.exp(S - S.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True) @ V


def sinusoidal(n, d):
    pos = np.arange(n)[:, None]
    k = np.arange(d // 2)[None, :]
    angle = pos / np.power(10000.0, 2 * k / d)
    return np.concatenate([np.sin(angle), np.cos(angle)], axis=1)


def encoded_attention(X, Wq, Wk, Wv):
    return self_attention(X + sinusoidal(*X.shape), Wq, Wk, Wv)
