"""attend lab block: a whole pre-norm transformer block (RMSNorm, attention, SwiGLU).

Check it with:   attend lab check block block.py
Re-check on save: attend lab watch block block.py
Stuck?            attend lab hint block

The contract:
  block(X, g1, Wq, Wk, Wv, Wo, g2, W1, W3, W2, h) where
      X  (batch, n, d)   the input; the output has the same shape:
                         a [1, 16, 256] input gives a [1, 16, 256] output
      g1, g2 (d,)        the gains of the two RMSNorms
      Wq, Wk, Wv, Wo (d, d)   multi-head self-attention, h heads of d/h, no mask,
                         head i owns columns i*d/h .. (i+1)*d/h - 1, scaled by sqrt(d/h)
      W1, W3 (d, f), W2 (f, d)   the SwiGLU FFN
  For each sequence x of the batch (n, d):
      x = x + attention(rmsnorm(x) * g1)
      x = x + ffn(rmsnorm(x) * g2)
  with rmsnorm(x) = x / sqrt(mean(x^2 over the row) + 1e-5)   (no mean subtracted)
  and  ffn(u) = (silu(u W1) * (u W3)) W2,  silu(z) = z / (1 + e^-z).
  Checked cell by cell to 1e-4 (plus 1e-4 of the value): float32 arrays are
  accepted. Do not change the arrays you are given (the check compares them
  after the call); compute into new ones.
"""
import numpy as np


def rmsnorm(x, g, eps=1e-5):
    # TODO: divide each row by sqrt(mean(x**2) + eps), then times the gain
    raise NotImplementedError("rmsnorm: fill in the TODO")


def attention(x, Wq, Wk, Wv, Wo, h):
    # TODO: multi-head self-attention of one sequence x (n, d) -> (n, d)
    raise NotImplementedError("attention: fill in the TODO")


def ffn(u, W1, W3, W2):
    # TODO: SwiGLU
    raise NotImplementedError("ffn: fill in the TODO")


def block(X, g1, Wq, Wk, Wv, Wo, g2, W1, W3, W2, h):
    # TODO: for every sequence of the batch: the two sublayers, each with its residual
    # TODO: return an array of X's shape
    raise NotImplementedError("block: fill in the TODOs")
