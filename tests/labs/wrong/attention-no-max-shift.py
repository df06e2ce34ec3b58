# Wrong on purpose (e^x without subtracting the max): the test expects the diagnosis "no-max-shift".
import numpy as np


def softmax(S):
    e = np.exp(S)
    return e / e.sum(axis=-1, keepdims=True)


def attention(Q, K, V, mask=None):
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        S = S + mask
    W = softmax(S)
    return W @ V, W
