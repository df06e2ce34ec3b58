# Wrong on purpose (the mask never added): the test expects the diagnosis "mask-ignored".
import numpy as np


def softmax(S):
    mx = np.max(S, axis=-1, keepdims=True)
    mx = np.where(np.isfinite(mx), mx, 0.0)
    e = np.exp(S - mx)
    s = e.sum(axis=-1, keepdims=True)
    return np.divide(e, s, out=np.zeros_like(e), where=s > 0)


def attention(Q, K, V, mask=None):
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        pass
    W = softmax(S)
    return W @ V, W
