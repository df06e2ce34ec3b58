#!/usr/bin/python3
"""hf_shapes.py - Hugging Face directories in real models' exact shapes with random BF16 weights,
for bench/hf_gpt2.py (a benchmark's inputs, not a test).

  qwen3-0.6b: Qwen3-0.6B's shape (28 layers, hidden 1024, 16 query / 8 key-value heads of 128,
              d_ff 3072, vocab 151,936, tied embeddings): a 1.19 GB model.safetensors.
  qwen3-4b:   Qwen3-4B-Instruct's (36 layers, hidden 2560, 32 query / 8 key-value heads of 128,
              d_ff 9728, vocab 151,936, tied): 8.04 GB.

The weights are random bfloat16 bit patterns (sign, magnitude 2^-7..2^-5, random mantissa; norm
gains 1), written tensor by tensor in chunks so that the 4B file never sits in memory. The
tokenizer is a byte-level BPE (bench/hf_gpt2.py's). `python3 bench/hf_shapes.py NAME DIR`
writes one."""
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ left in bench/ or tests/ref/

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "ref"))
import hf_ref  # noqa: E402

SHAPES = {
    "qwen3-0.6b": {"model_type": "qwen3", "vocab_size": 151936, "hidden_size": 1024,
                   "intermediate_size": 3072, "num_hidden_layers": 28, "num_attention_heads": 16,
                   "num_key_value_heads": 8, "head_dim": 128, "max_position_embeddings": 40960,
                   "rms_norm_eps": 1e-6, "rope_theta": 1000000.0, "attention_bias": False,
                   "tie_word_embeddings": True, "hidden_act": "silu", "torch_dtype": "bfloat16"},
    "qwen3-4b": {"model_type": "qwen3", "vocab_size": 151936, "hidden_size": 2560,
                 "intermediate_size": 9728, "num_hidden_layers": 36, "num_attention_heads": 32,
                 "num_key_value_heads": 8, "head_dim": 128, "max_position_embeddings": 262144,
                 "rms_norm_eps": 1e-6, "rope_theta": 5000000.0, "attention_bias": False,
                 "tie_word_embeddings": True, "hidden_act": "silu", "torch_dtype": "bfloat16"},
}


def tensors(cfg):
    """(name, shape, is_gain) in the file's order."""
    d, F, V = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"]
    hd = cfg["num_attention_heads"] * cfg["head_dim"]
    kvd = cfg["num_key_value_heads"] * cfg["head_dim"]
    out = [("model.embed_tokens.weight", (V, d), False)]
    for l in range(cfg["num_hidden_layers"]):
        p = "model.layers.%d." % l
        out += [(p + "input_layernorm.weight", (d,), True),
                (p + "self_attn.q_proj.weight", (hd, d), False),
                (p + "self_attn.k_proj.weight", (kvd, d), False),
                (p + "self_attn.v_proj.weight", (kvd, d), False),
                (p + "self_attn.q_norm.weight", (cfg["head_dim"],), True),
                (p + "self_attn.k_norm.weight", (cfg["head_dim"],), True),
                (p + "self_attn.o_proj.weight", (d, hd), False),
                (p + "post_attention_layernorm.weight", (d,), True),
                (p + "mlp.gate_proj.weight", (F, d), False),
                (p + "mlp.up_proj.weight", (F, d), False),
                (p + "mlp.down_proj.weight", (d, F), False)]
    out.append(("model.norm.weight", (d,), True))
    return out


def file_bytes(name):
    """The size of shape NAME's model.safetensors (its header and its BF16 weights)."""
    ts = tensors(SHAPES[name])
    hdr, off = header(ts)
    return 8 + len(hdr) + off


def header(ts):
    """The safetensors header of tensors ts (padded to 8 bytes) and the weights' byte count."""
    hdr, off = {}, 0
    for n, shape, _ in ts:
        size = int(np.prod(shape)) * 2
        hdr[n] = {"dtype": "BF16", "shape": list(shape), "data_offsets": [off, off + size]}
        off += size
    hb = json.dumps(hdr).encode()
    return hb + b" " * (-len(hb) % 8), off


def write(name, d):
    """Writes shape NAME as directory d (nothing when its model.safetensors is complete)."""
    cfg = SHAPES[name]
    path = os.path.join(d, "model.safetensors")
    ts = tensors(cfg)
    hb, off = header(ts)
    if os.path.exists(path) and os.path.getsize(path) == 8 + len(hb) + off:
        return path
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(4)
    tmp = path + ".tmp"
    try:  # a failed write (the disk full) leaves no partial file behind
        with open(tmp, "wb") as f:
            f.write(len(hb).to_bytes(8, "little"))
            f.write(hb)
            for n, shape, gain in ts:
                left = int(np.prod(shape))
                while left:
                    c = min(left, 1 << 24)
                    if gain:
                        f.write(np.full(c, 0x3f80, "<u2").tobytes())
                    else:
                        r = rng.integers(0, 1 << 16, c, dtype=np.uint16)
                        f.write(((r & 0x80ff) | 0x3c00).astype("<u2").tobytes())
                    left -= c
    except OSError:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    os.replace(tmp, path)
    vocab, merges = hf_ref.byte_tokenizer(60)
    with open(os.path.join(d, "tokenizer.json"), "w") as f:
        json.dump(hf_ref.tokenizer_json(vocab, merges, "gpt2", [("<|endoftext|>", 151643)]), f)
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(cfg, f)
    return path


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in SHAPES:
        print("usage: hf_shapes.py %s DIR" % "|".join(SHAPES))
        sys.exit(2)
    print(write(sys.argv[1], sys.argv[2]))
