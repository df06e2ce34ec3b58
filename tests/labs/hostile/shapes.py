# Hostile: returns arrays of the wrong shapes and things that are not arrays.
import numpy as np


def attention(Q, K, V, mask=None):
    if Q.shape[0] == 4:
        return np.zeros((2, 2, 2, 2)), "weights"
    return np.zeros((Q.shape[0] + 1, V.shape[1])), np.zeros((1,))
