"""attend lab attention: scaled dot-product attention.

Check it with:   attend lab check attention attention.py
Re-check on save: attend lab watch attention attention.py
Stuck?            attend lab hint attention

The contract:
  attention(Q, K, V, mask=None) takes float numpy arrays
      Q of shape (n, d_k), K of shape (m, d_k), V of shape (m, d_v),
  and mask either None or an additive (n, m) array of 0 and -inf
  (0: query i may read key j; -inf: it may not). It returns the pair
      (output, weights)
  of shapes (n, d_v) and (n, m), where
      weights = softmax(Q K^T / sqrt(d_k) + mask), row by row,
      output  = weights V.
  A row that the mask hides everywhere gets weights of 0 and an output of 0
  (attend's convention, never NaN). Some cases have scores in the thousands,
  where a softmax that does not subtract the row's max overflows.
  Where PyTorch is installed, a passing check also compares your output with
  torch.nn.functional.scaled_dot_product_attention.
  Checked cell by cell to 1e-4 (plus 1e-4 of the value): float32 arrays are
  accepted. Do not change the arrays you are given (the check compares them
  after the call); compute into new ones.
"""
import numpy as np


def attention(Q, K, V, mask=None):
    # TODO: the scores: every query against every key, an (n, m) matrix
    # TODO: divide the scores by sqrt(d_k)
    # TODO: if a mask is given, add it to the scaled scores (before the softmax)
    # TODO: softmax over each row (subtract the row's max first; a fully hidden row -> 0)
    # TODO: the output is the weights times V
    # TODO: return output, weights
    raise NotImplementedError("attention: fill in the TODOs")
