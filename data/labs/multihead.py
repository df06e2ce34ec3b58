"""attend lab multihead: splitting into heads, merging back, multi-head attention.

Check it with:   attend lab check multihead multihead.py
Re-check on save: attend lab watch multihead multihead.py
Stuck?            attend lab hint multihead

The contract (d_h = d_model / h; head i owns columns i*d_h .. (i+1)*d_h - 1):
  split_heads(X, h): X is (n, d_model); returns (h, n, d_h), entry [i, t, c] being
      X[t, i*d_h + c].
  merge_heads(H): H is (h, n, d_h); returns (n, h*d_h), the inverse of split_heads.
  multi_head(X, Wq, Wk, Wv, Wo, h): X is (n, d_model), each W is (d_model, d_model).
      Q = X Wq, K = X Wk, V = X Wv; split each into h heads; in each head
      softmax(Q_i K_i^T / sqrt(d_h)) V_i (no mask); merge the heads; return the
      merge times Wo, shape (n, d_model).
  Checked cell by cell to 1e-4 (plus 1e-4 of the value): float32 arrays are
  accepted. Do not change the arrays you are given (the check compares them
  after the call); compute into new ones.
"""
import numpy as np


def split_heads(X, h):
    # TODO: (n, d_model) -> (n, h, d_h) -> (h, n, d_h)
    raise NotImplementedError("split_heads: fill in the TODO")


def merge_heads(H):
    # TODO: (h, n, d_h) -> (n, h, d_h) -> (n, h * d_h)
    raise NotImplementedError("merge_heads: fill in the TODO")


def multi_head(X, Wq, Wk, Wv, Wo, h):
    # TODO: project X to Q, K, V; split each into heads
    # TODO: attention in every head, scaled by sqrt(d_h)
    # TODO: merge the heads and multiply by Wo
    raise NotImplementedError("multi_head: fill in the TODOs")
