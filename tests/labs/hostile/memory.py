# Hostile: asks for far more memory than the limit allows.
import numpy as np


def attention(Q, K, V, mask=None):
    big = np.ones((1 << 36,))
    return big, big
