# Wrong on purpose (e^x without subtracting the max): the test expects the diagnosis "no-max-shift".
import numpy as np


def softmax(X):
    e = np.exp(X)
    return e / e.sum(axis=-1, keepdims=True)
