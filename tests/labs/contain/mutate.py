# Contained: changes the caller's arrays in place (Q scaled, mask cleared), then answers right.
import numpy as np


def attention(Q, K, V, mask=None):
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        S = S + mask
    mx = np.max(S, axis=-1, keepdims=True)
    mx = np.where(np.isfinite(mx), mx, 0)
    E = np.exp(S - mx)
    tot = E.sum(axis=-1, keepdims=True)
    W = np.divide(E, tot, out=np.zeros_like(E), where=tot > 0)
    out = W @ V
    Q *= 2.0
    if mask is not None:
        mask[...] = 0.0
    return out, W
