# Wrong on purpose (multiplied by sqrt(d_h)): the test expects the diagnosis "scale-times".
import numpy as np


def split_heads(X, h):
    n, d = X.shape
    return X.reshape(n, h, d // h).transpose(1, 0, 2)


def merge_heads(H):
    h, n, dh = H.shape
    return H.transpose(1, 0, 2).reshape(n, h * dh)


def softmax(S):
    e = np.exp(S - S.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def multi_head(X, Wq, Wk, Wv, Wo, h):
    Q, K, V = (split_heads(X @ W, h) for W in (Wq, Wk, Wv))
    W = softmax(Q @ K.transpose(0, 2, 1) * np.sqrt(Q.shape[2]))
    return merge_heads(W @ V) @ Wo
