# Wrong on purpose (softmax down the columns): the test expects the diagnosis "softmax-axis".
import numpy as np


def softmax(X):
    mx = np.max(X, axis=0, keepdims=True)
    mx = np.where(np.isfinite(mx), mx, 0.0)
    e = np.exp(X - mx)
    s = e.sum(axis=0, keepdims=True)
    return np.divide(e, s, out=np.zeros_like(e), where=s > 0)
