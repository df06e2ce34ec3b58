# Wrong on purpose twice (no 1/sqrt(d_k), and 0 where -inf belongs): the test expects the diagnoses "no-scale" "mask-zero".
import numpy as np


def softmax(S):
    mx = np.max(S, axis=-1, keepdims=True)
    mx = np.where(np.isfinite(mx), mx, 0.0)
    e = np.exp(S - mx)
    s = e.sum(axis=-1, keepdims=True)
    return np.divide(e, s, out=np.zeros_like(e), where=s > 0)


def attention(Q, K, V, mask=None):
    S = Q @ K.T
    if mask is not None:
        S = np.where(np.isinf(mask), 0.0, S + mask)
    W = softmax(S)
    return W @ V, W
