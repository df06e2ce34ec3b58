"""attend lab kvcache: decoding with a KV cache equals the full recompute.

Check it with:   attend lab check kvcache kvcache.py
Re-check on save: attend lab watch kvcache kvcache.py
Stuck?            attend lab hint kvcache

The contract:
  decode_step(cache, q, k, v) is called once per token t = 0, 1, 2, ... in order,
  with this token's query q and key k (shape (d_k,)) and value v (shape (d_v,)).
  cache is a dict, empty at the first call, that is yours to keep anything in
  between calls. It returns this token's output, shape (d_v,): attention of q over
  the keys and values of tokens 0..t (itself included), scaled by sqrt(d_k).
  Stacked, the outputs must equal causal attention over the whole sequence at once.
  Checked cell by cell to 1e-4 (plus 1e-4 of the value): float32 arrays are
  accepted.
"""
import numpy as np


def decode_step(cache, q, k, v):
    # TODO: append k and v to the cache (keep them as rows of two arrays, or as lists)
    # TODO: the scores of q against every cached key, scaled by sqrt(d_k)
    # TODO: softmax (subtract the max), then the weighted sum of the cached values
    raise NotImplementedError("decode_step: fill in the TODOs")
