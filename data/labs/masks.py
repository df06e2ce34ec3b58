"""attend lab masks: the causal and the padding mask, and the softmax they feed.

Check it with:   attend lab check masks masks.py
Re-check on save: attend lab watch masks masks.py
Stuck?            attend lab hint masks

The contract (masks are additive: 0 where a query may read a key, -inf where not):
  causal_mask(n) returns an (n, n) float array: entry (i, j) is -inf when key j
      comes after query i (j > i), else 0.
  padding_mask(keep, n) takes keep, a float array of shape (m,) holding 1 for a
      real key and 0 for a padding key, and returns an (n, m) array: -inf in the
      columns of the padding keys, 0 elsewhere, the same for each of the n queries.
  masked_softmax(S, M) takes scores S and a mask M, both (n, m), and returns the
      (n, m) weights softmax(S + M) row by row; a row hidden everywhere gets
      weights of 0 (never NaN).
  Checked cell by cell to 1e-4 (plus 1e-4 of the value): float32 arrays are
  accepted. Do not change the arrays you are given (the check compares them
  after the call); compute into new ones.
"""
import numpy as np


def causal_mask(n):
    # TODO: -inf above the diagonal (j > i), 0 on and below it
    raise NotImplementedError("causal_mask: fill in the TODO")


def padding_mask(keep, n):
    # TODO: one row with -inf where keep is 0 and 0 where it is 1, repeated for n queries
    raise NotImplementedError("padding_mask: fill in the TODO")


def masked_softmax(S, M):
    # TODO: add the mask to the scores, then a softmax over each row
    # TODO: subtract the row's max (0 for a row that is -inf everywhere) before np.exp
    raise NotImplementedError("masked_softmax: fill in the TODOs")
