#!/usr/bin/python3
"""hf_ref.py - small random Hugging Face models and an independent reference for them.

Writes safetensors files (the format written here from its specification: 8-byte header
length, JSON header, raw little-endian data), config.json and tokenizer files, and computes
the forward pass in float64 with torch, written from the public definitions in transformers'
modeling_gpt2.py and modeling_llama.py (and Qwen2's qkv biases, Qwen3's q/k norms). The
tokenizer reference is byte-level BPE as published with GPT-2 (encoder.py: bytes_to_unicode,
the pre-tokenizer pattern, merges by rank) and SentencePiece-style BPE with byte fallback.
Used by hf_models.py and tokenizer_gpt2.py; imports nothing from attend.
"""
import json
import math
import os
import struct

import numpy as np
import regex
import torch

GPT2_PAT = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
LLAMA3_PAT = (r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|"""
              r""" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""")


# ------------------------------------------------------------------ safetensors

def to_dtype(a, dtype):
    """a (float32 numpy) rounded to dtype; returns (raw bytes, the float64 values it holds)."""
    t = torch.from_numpy(np.ascontiguousarray(a, dtype=np.float32))
    if dtype == "F32":
        return t.numpy().tobytes(), t.double()
    if dtype == "F16":
        h = t.half()
        return h.numpy().tobytes(), h.double()
    b = t.bfloat16()
    return b.view(torch.int16).numpy().tobytes(), b.double()


def write_safetensors(path, tensors, header_extra=None):
    """tensors: list of (name, raw bytes, dtype, shape)."""
    header, off, blobs = {}, 0, []
    for name, raw, dtype, shape in tensors:
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [off, off + len(raw)]}
        off += len(raw)
        blobs.append(raw)
    header["__metadata__"] = {"format": "pt"}
    if header_extra:
        header_extra(header)
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def save_weights(d, weights, dtype, shards):
    """weights: dict name -> float32 array. Returns name -> float64 torch tensor (as stored)."""
    stored, items = {}, []
    for name, a in weights.items():
        raw, val = to_dtype(a, dtype)
        stored[name] = val
        items.append((name, raw, dtype, a.shape))
    if shards <= 1:
        write_safetensors(os.path.join(d, "model.safetensors"), items)
        return stored
    per = (len(items) + shards - 1) // shards
    wmap = {}
    for s in range(shards):
        fn = "model-%05d-of-%05d.safetensors" % (s + 1, shards)
        part = items[s * per:(s + 1) * per]
        write_safetensors(os.path.join(d, fn), part)
        for it in part:
            wmap[it[0]] = fn
    with open(os.path.join(d, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": 0}, "weight_map": wmap}, f)
    return stored


# ------------------------------------------------------------------- tokenizers

def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, [chr(c) for c in cs]))


B2U = bytes_to_unicode()


def bpe(word, ranks):
    """GPT-2's bpe(): merge the lowest-ranked pair (every occurrence) until none is left."""
    w = list(word)
    while len(w) > 1:
        pairs = [(ranks.get((w[i], w[i + 1]), 1 << 60), i) for i in range(len(w) - 1)]
        r, _ = min(pairs)
        if r == 1 << 60:
            break
        a, b = w[pairs[[p[0] for p in pairs].index(r)][1]], w[pairs[[p[0] for p in pairs].index(r)][1] + 1]
        out, i = [], 0
        while i < len(w):
            if i + 1 < len(w) and w[i] == a and w[i + 1] == b:
                out.append(a + b)
                i += 2
            else:
                out.append(w[i])
                i += 1
        w = out
    return w


class ByteBPE:
    """Byte-level BPE: pre-tokenizer pattern, bytes as characters, merges by rank."""

    def __init__(self, vocab, merges, pattern=GPT2_PAT, specials=None, bos=None,
                 ignore_merges=False):
        self.vocab, self.pattern = vocab, regex.compile(pattern)
        self.ranks = {tuple(m): i for i, m in enumerate(merges)}
        self.specials = specials or {}
        self.bos, self.ignore_merges = bos, ignore_merges

    def _text(self, text):
        ids = []
        for piece in self.pattern.findall(text):
            w = "".join(B2U[b] for b in piece.encode("utf-8"))
            if self.ignore_merges and w in self.vocab:
                ids.append(self.vocab[w])
                continue
            ids += [self.vocab[t] for t in bpe(w, self.ranks)]
        return ids

    def encode(self, text):
        ids = [self.bos] if self.bos is not None else []
        if not self.specials:
            return ids + self._text(text)
        alt = regex.compile("|".join(regex.escape(s) for s in sorted(self.specials, key=len, reverse=True)))
        last = 0
        for m in alt.finditer(text):
            ids += self._text(text[last:m.start()]) + [self.specials[m.group()]]
            last = m.end()
        return ids + self._text(text[last:])


class SpBPE:
    """SentencePiece-style BPE (LLaMA-2, TinyLlama): spaces as U+2581, one prepended, BPE over
    characters, unknown pieces as <0xHH> byte tokens, <s> first."""

    def __init__(self, vocab, merges, bos):
        self.vocab, self.bos = vocab, bos
        self.ranks = {tuple(m): i for i, m in enumerate(merges)}

    def encode(self, text):
        s = "\u2581" + text.replace(" ", "\u2581")
        ids = [self.bos]
        for t in bpe(s, self.ranks):
            if t in self.vocab:
                ids.append(self.vocab[t])
            else:
                ids += [self.vocab["<0x%02X>" % b] for b in t.encode("utf-8")]
        return ids


def learn_merges(text, symbols_of, n):
    """A tiny BPE training run: the most frequent pair, n times (ties: first seen)."""
    words = [list(symbols_of(w)) for w in text]
    merges = []
    for _ in range(n):
        count = {}
        for w in words:
            for p in zip(w, w[1:]):
                count[p] = count.get(p, 0) + 1
        if not count:
            break
        best = max(count.items(), key=lambda kv: kv[1])[0]
        merges.append(best)
        for k, w in enumerate(words):
            out, i = [], 0
            while i < len(w):
                if i + 1 < len(w) and (w[i], w[i + 1]) == best:
                    out.append(w[i] + w[i + 1])
                    i += 2
                else:
                    out.append(w[i])
                    i += 1
            words[k] = out
    return merges


TRAIN = ("she sat by the river bank and the cat sat on the mat while the bank of the river "
         "was quiet; the rain fell. They're here, we'll see 12 cats at 3:45!")


def byte_tokenizer(n_merges=60, pattern=GPT2_PAT):
    pieces = regex.findall(pattern, TRAIN)
    merges = learn_merges(pieces, lambda p: "".join(B2U[b] for b in p.encode()), n_merges)
    vocab = {B2U[b]: i for i, b in enumerate(sorted(B2U))}
    for a, b in merges:
        vocab.setdefault(a + b, len(vocab))
    return vocab, merges


def sp_tokenizer(n_merges=60):
    words = ["\u2581" + w for w in TRAIN.split(" ")]
    merges = learn_merges(words, lambda w: w, n_merges)
    vocab = {"<unk>": 0, "<s>": 1, "</s>": 2}
    for b in range(256):
        vocab["<0x%02X>" % b] = len(vocab)
    for ch in sorted(set("".join(words))):
        vocab.setdefault(ch, len(vocab))
    for a, b in merges:
        vocab.setdefault(a + b, len(vocab))
    return vocab, merges


def tokenizer_json(vocab, merges, kind, added=(), bos=None, merges_as_lists=False):
    """A tokenizer.json in the Hugging Face tokenizers format."""
    m = [[a, b] if merges_as_lists else a + " " + b for a, b in merges]
    model = {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
             "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False,
             "ignore_merges": False, "vocab": vocab, "merges": m}
    tj = {"version": "1.0", "truncation": None, "padding": None,
          "added_tokens": [{"id": i, "content": c, "single_word": False, "lstrip": False,
                            "rstrip": False, "normalized": False, "special": True} for c, i in added],
          "normalizer": None, "pre_tokenizer": None, "post_processor": None, "decoder": None,
          "model": model}
    if kind == "gpt2":
        tj["pre_tokenizer"] = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                               "use_regex": True}
        tj["post_processor"] = {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False,
                                "use_regex": True}
    elif kind == "llama3":
        model["ignore_merges"] = True
        tj["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": LLAMA3_PAT}, "behavior": "Isolated", "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}]}
        bos_tok = [c for c, i in added if i == bos][0]
        tj["post_processor"] = {"type": "Sequence", "processors": [
            {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True},
            {"type": "TemplateProcessing",
             "single": [{"SpecialToken": {"id": bos_tok, "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
             "pair": [], "special_tokens": {bos_tok: {"id": bos_tok, "ids": [bos], "tokens": [bos_tok]}}}]}
    elif kind == "qwen":
        tj["normalizer"] = {"type": "NFC"}
        tj["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": LLAMA3_PAT}, "behavior": "Isolated", "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}]}
        tj["post_processor"] = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False,
                                "use_regex": False}
    elif kind == "sp":
        model.update(unk_token="<unk>", fuse_unk=True, byte_fallback=True)
        tj["normalizer"] = {"type": "Sequence", "normalizers": [
            {"type": "Prepend", "prepend": "\u2581"},
            {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}]}
        tj["post_processor"] = {"type": "TemplateProcessing",
                                "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
                                "pair": [], "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}}
    return tj


# ------------------------------------------------------------------ forward passes

def layernorm(x, w, b, eps):
    mu = x.mean(-1, keepdim=True)
    var = ((x - mu) ** 2).mean(-1, keepdim=True)
    return (x - mu) / torch.sqrt(var + eps) * w + b


def rmsnorm(x, w, eps):
    return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + eps) * w


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def attend_heads(out, l, q, k, v, n, causal=True):
    """q, k, v: (H, n, dh) after any RoPE; records scores .. out for each head."""
    H, _, dh = q.shape
    mask = torch.zeros(n, n, dtype=torch.float64)
    if causal:
        mask = mask.masked_fill(torch.triu(torch.ones(n, n, dtype=torch.bool), 1), float("-inf"))
    out["L%d.mask" % l] = mask
    heads = []
    for h in range(H):
        s = q[h] @ k[h].T
        sc = s / math.sqrt(dh)
        ms = sc + mask
        w = torch.softmax(ms, -1)
        o = w @ v[h]
        for key, val in (("scores", s), ("scaled", sc), ("masked", ms), ("weights", w), ("out", o)):
            out["L%d.h%d.%s" % (l, h, key)] = val
        heads.append(o)
    return torch.cat(heads, -1)


def gpt2_forward(W, cfg, ids, prefix=""):
    """modeling_gpt2.py: learned positions, pre-LayerNorm, Conv1D (x @ W + b), gelu_new, tied."""
    P = lambda k: W[prefix + k]
    n, d, H = len(ids), cfg["n_embd"], cfg["n_head"]
    dh, eps = d // H, cfg["layer_norm_epsilon"]
    out = {}
    x = P("wte.weight")[ids]
    out["embed"] = x
    out["pe"] = P("wpe.weight")[:n]
    h = x + out["pe"]
    out["x_pe"] = h
    for l in range(cfg["n_layer"]):
        a = layernorm(h, P("h.%d.ln_1.weight" % l), P("h.%d.ln_1.bias" % l), eps)
        out["L%d.norm_in" % l] = a
        qkv = a @ P("h.%d.attn.c_attn.weight" % l) + P("h.%d.attn.c_attn.bias" % l)
        q, k, v = qkv.split(d, -1)
        split = lambda t: t.view(n, H, dh).transpose(0, 1)
        q, k, v = split(q), split(k), split(v)
        for hh in range(H):
            out["L%d.h%d.q" % (l, hh)], out["L%d.h%d.k" % (l, hh)], out["L%d.h%d.v" % (l, hh)] = q[hh], k[hh], v[hh]
        cat = attend_heads(out, l, q, k, v, n)
        out["L%d.concat" % l] = cat
        ao = cat @ P("h.%d.attn.c_proj.weight" % l) + P("h.%d.attn.c_proj.bias" % l)
        out["L%d.attn_out" % l] = ao
        h = h + ao
        out["L%d.resid" % l] = h
        m = layernorm(h, P("h.%d.ln_2.weight" % l), P("h.%d.ln_2.bias" % l), eps)
        out["L%d.ffn.norm_in" % l] = m
        hid = gelu_new(m @ P("h.%d.mlp.c_fc.weight" % l) + P("h.%d.mlp.c_fc.bias" % l))
        out["L%d.ffn_hidden" % l] = hid
        fo = hid @ P("h.%d.mlp.c_proj.weight" % l) + P("h.%d.mlp.c_proj.bias" % l)
        out["L%d.ffn_out" % l] = fo
        h = h + fo
        out["L%d.ffn.resid" % l] = h
    h = layernorm(h, P("ln_f.weight"), P("ln_f.bias"), eps)
    out["final_norm"] = h
    out["logits"] = h @ P("wte.weight").T
    return out


def rope_inv_freq(cfg, dh):
    base = cfg.get("rope_theta", 10000.0)
    inv = 1.0 / (base ** (torch.arange(0, dh, 2, dtype=torch.float64) / dh))
    rs = cfg.get("rope_scaling")
    if rs and rs.get("rope_type", rs.get("type")) == "llama3":
        # transformers' _compute_llama3_parameters
        factor, lo, hi = rs["factor"], rs["low_freq_factor"], rs["high_freq_factor"]
        old = rs["original_max_position_embeddings"]
        lo_wl, hi_wl = old / lo, old / hi
        wl = 2 * math.pi / inv
        inv_l = torch.where(wl > lo_wl, inv / factor, inv)
        smooth = (old / wl - lo) / (hi - lo)
        smoothed = (1 - smooth) * inv_l / factor + smooth * inv_l
        medium = ~(wl < hi_wl) & ~(wl > lo_wl)
        inv = torch.where(medium, smoothed, inv_l)
    elif rs and rs.get("rope_type", rs.get("type")) == "linear":
        inv = inv / rs["factor"]
    return inv


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), -1)


def llama_forward(W, cfg, ids):
    """modeling_llama.py: RMSNorm, RoPE (rotate_half), grouped K/V (repeat_kv), SwiGLU; Qwen2's
    q/k/v biases; Qwen3's q_norm/k_norm on each head before RoPE."""
    P = lambda k: W["model." + k]
    n, d, H = len(ids), cfg["hidden_size"], cfg["num_attention_heads"]
    Hkv = cfg.get("num_key_value_heads", H)
    dh = cfg.get("head_dim") or d // H
    eps = cfg["rms_norm_eps"]
    qwen3 = cfg["model_type"] == "qwen3"
    bias = cfg["model_type"] == "qwen2" or cfg.get("attention_bias", False)
    out = {}
    h = P("embed_tokens.weight")[ids]
    out["embed"] = h
    pos = torch.arange(n, dtype=torch.float64)
    freqs = torch.outer(pos, rope_inv_freq(cfg, dh))
    emb = torch.cat((freqs, freqs), -1)
    cos, sin = emb.cos(), emb.sin()
    for l in range(cfg["num_hidden_layers"]):
        A = "layers.%d.self_attn." % l
        a = rmsnorm(h, P("layers.%d.input_layernorm.weight" % l), eps)
        out["L%d.norm_in" % l] = a
        q = a @ P(A + "q_proj.weight").T
        k = a @ P(A + "k_proj.weight").T
        v = a @ P(A + "v_proj.weight").T
        if bias:
            q, k, v = q + P(A + "q_proj.bias"), k + P(A + "k_proj.bias"), v + P(A + "v_proj.bias")
        q = q.view(n, H, dh).transpose(0, 1)
        k = k.view(n, Hkv, dh).transpose(0, 1)
        v = v.view(n, Hkv, dh).transpose(0, 1)
        if qwen3:
            q = rmsnorm(q, P(A + "q_norm.weight"), eps)
            k = rmsnorm(k, P(A + "k_norm.weight"), eps)
        k = k.repeat_interleave(H // Hkv, 0)  # repeat_kv
        v = v.repeat_interleave(H // Hkv, 0)
        qr = q * cos + rotate_half(q) * sin
        kr = k * cos + rotate_half(k) * sin
        for hh in range(H):
            for key, t in (("q", q), ("k", k), ("v", v), ("q_rot", qr), ("k_rot", kr)):
                out["L%d.h%d.%s" % (l, hh, key)] = t[hh]
        cat = attend_heads(out, l, qr, kr, v, n)
        out["L%d.concat" % l] = cat
        ao = cat @ P(A + "o_proj.weight").T
        out["L%d.attn_out" % l] = ao
        h = h + ao
        out["L%d.resid" % l] = h
        m = rmsnorm(h, P("layers.%d.post_attention_layernorm.weight" % l), eps)
        out["L%d.ffn.norm_in" % l] = m
        g = m @ P("layers.%d.mlp.gate_proj.weight" % l).T
        hid = torch.nn.functional.silu(g) * (m @ P("layers.%d.mlp.up_proj.weight" % l).T)
        out["L%d.ffn_hidden" % l] = hid
        fo = hid @ P("layers.%d.mlp.down_proj.weight" % l).T
        out["L%d.ffn_out" % l] = fo
        h = h + fo
        out["L%d.ffn.resid" % l] = h
    h = rmsnorm(h, P("norm.weight"), eps)
    out["final_norm"] = h
    head = W["lm_head.weight"] if "lm_head.weight" in W else P("embed_tokens.weight")
    out["logits"] = h @ head.T
    return out
