# Wrong on purpose (positions added after attention): the test expects the diagnosis "positions-after".
import numpy as np


def self_attention(X, Wq, Wk, Wv):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    S = Q @ K.T / np.sqrt(Q.shape[1])
    e = np.exp(S - S.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True) @ V


def sinusoidal(n, d):
    pos = np.arange(n)[:, None]
    i = np.arange(d)[None, :]
    angle = pos / np.power(10000.0, (i // 2 * 2) / d)
    return np.where(i % 2 == 0, np.sin(angle), np.cos(angle))


def encoded_attention(X, Wq, Wk, Wv):
    return self_attention(X, Wq, Wk, Wv) + sinusoidal(*X.shape)
