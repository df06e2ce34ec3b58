# Wrong on purpose (the residual carries the normalised x): the test expects the diagnosis "residual-normed".
import numpy as np


def rmsnorm(x, g, eps=1e-5):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * g


def softmax(S):
    e = np.exp(S - S.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def attention(x, Wq, Wk, Wv, Wo, h):
    n, d = x.shape
    Q, K, V = ((x @ W).reshape(n, h, d // h).transpose(1, 0, 2) for W in (Wq, Wk, Wv))
    A = softmax(Q @ K.transpose(0, 2, 1) / np.sqrt(d // h)) @ V
    return A.transpose(1, 0, 2).reshape(n, d) @ Wo


def ffn(u, W1, W3, W2):
    a = u @ W1
    return (a / (1 + np.exp(-a)) * (u @ W3)) @ W2


def block(X, g1, Wq, Wk, Wv, Wo, g2, W1, W3, W2, h):
    out = np.empty_like(X)
    for b, x in enumerate(X):
        x = rmsnorm(x, g1)
        x = x + attention(x, Wq, Wk, Wv, Wo, h)
        x = rmsnorm(x, g2)
        out[b] = x + ffn(x, W1, W3, W2)
    return out
