"""attend lab positions: attention ignores order; sinusoidal positions fix it.

Check it with:   attend lab check positions positions.py
Re-check on save: attend lab watch positions positions.py
Stuck?            attend lab hint positions

The contract:
  self_attention(X, Wq, Wk, Wv): X (n, d), each W (d, d). One head, no mask:
      softmax(Q K^T / sqrt(d)) V with Q = X Wq, K = X Wk, V = X Wv; returns (n, d).
  sinusoidal(n, d): the (n, d) table PE[pos, 2i] = sin(pos / 10000^(2i/d)),
      PE[pos, 2i+1] = cos(pos / 10000^(2i/d)).
  encoded_attention(X, Wq, Wk, Wv): the same self-attention of X + sinusoidal(n, d).
The check feeds the same tokens in two orders: without positions your rows
should just permute; with them the values change. attend prints both gaps.
  Checked cell by cell to 1e-4 (plus 1e-4 of the value): float32 arrays are
  accepted. Do not change the arrays you are given (the check compares them
  after the call); compute into new ones.
"""
import numpy as np


def self_attention(X, Wq, Wk, Wv):
    # TODO: Q, K, V from X; the weights; the output
    raise NotImplementedError("self_attention: fill in the TODO")


def sinusoidal(n, d):
    # TODO: sin in the even columns, cos in the odd ones
    raise NotImplementedError("sinusoidal: fill in the TODO")


def encoded_attention(X, Wq, Wk, Wv):
    # TODO: add the positions to the input first
    raise NotImplementedError("encoded_attention: fill in the TODO")
