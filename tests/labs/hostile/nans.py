# Hostile: NaN and infinity everywhere.
import numpy as np


def attention(Q, K, V, mask=None):
    out = np.full((Q.shape[0], V.shape[1]), np.nan)
    return out, np.full((Q.shape[0], K.shape[0]), np.inf)
