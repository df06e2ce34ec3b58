# Wrong on purpose (a fully masked row gives NaN): the test expects the diagnosis "masked-row-nan".
import numpy as np


def softmax(S):
    mx = np.max(S, axis=-1, keepdims=True)
    e = np.exp(S - mx)
    s = e.sum(axis=-1, keepdims=True)
    return e / s


def attention(Q, K, V, mask=None):
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        S = S + mask
    W = softmax(S)
    return W @ V, W
