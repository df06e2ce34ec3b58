# Wrong on purpose (the max subtracted, but a row of -inf gives NaN): the test expects the diagnosis "masked-row-nan".
import numpy as np


def softmax(X):
    mx = np.max(X, axis=-1, keepdims=True)
    e = np.exp(X - mx)
    s = e.sum(axis=-1, keepdims=True)
    return e / s
