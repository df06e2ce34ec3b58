#!/usr/bin/python3
"""hf_models.py - attend opens small random Hugging Face models of every family it supports
(GPT-2; LLaMA, Qwen2, Qwen3 with grouped K/V heads, tied and untied heads, llama3 RoPE
scaling), in every dtype, sharded and not, with each kind of tokenizer file, and every tensor
of `attend dump --format json` agrees with hf_ref.py's independent float64 forward pass within
1e-4 relative (max |attend - ref| / max |ref| per tensor); token_ids agree with the reference
tokenizer. Prints "N passed, N failed".
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hf_ref  # noqa: E402

ATTEND = os.environ.get("ATTEND", "./attend")
TOL = 1e-4
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
        print("ok - " + what)
    else:
        failed += 1
        print("FAIL - " + what)


def rand(rng, *shape, std=None):
    std = std if std is not None else 1.0 / np.sqrt(shape[-1] if len(shape) > 1 else 1)
    return (rng.standard_normal(shape) * std).astype(np.float32)


def gpt2_weights(rng, cfg, prefix, tied):
    d, L, V, P = cfg["n_embd"], cfg["n_layer"], cfg["vocab_size"], cfg["n_positions"]
    F = cfg.get("n_inner") or 4 * d
    W = {prefix + "wte.weight": rand(rng, V, d, std=1.0), prefix + "wpe.weight": rand(rng, P, d, std=0.5)}
    for l in range(L):
        p = prefix + "h.%d." % l
        W[p + "ln_1.weight"] = 1 + rand(rng, d, std=0.1)
        W[p + "ln_1.bias"] = rand(rng, d, std=0.1)
        W[p + "attn.c_attn.weight"] = rand(rng, d, 3 * d, std=0.5)
        W[p + "attn.c_attn.bias"] = rand(rng, 3 * d, std=0.1)
        W[p + "attn.c_proj.weight"] = rand(rng, d, d, std=d ** -0.5)
        W[p + "attn.c_proj.bias"] = rand(rng, d, std=0.1)
        W[p + "ln_2.weight"] = 1 + rand(rng, d, std=0.1)
        W[p + "ln_2.bias"] = rand(rng, d, std=0.1)
        W[p + "mlp.c_fc.weight"] = rand(rng, d, F, std=d ** -0.5)
        W[p + "mlp.c_fc.bias"] = rand(rng, F, std=0.1)
        W[p + "mlp.c_proj.weight"] = rand(rng, F, d, std=F ** -0.5)
        W[p + "mlp.c_proj.bias"] = rand(rng, d, std=0.1)
        W[p + "attn.bias"] = np.tril(np.ones((1, 1, P, P), np.float32))  # old files' mask buffer
    W[prefix + "ln_f.weight"] = 1 + rand(rng, d, std=0.1)
    W[prefix + "ln_f.bias"] = rand(rng, d, std=0.1)
    if not tied:
        W["lm_head.weight"] = rand(rng, V, d)
    return W


def llama_weights(rng, cfg):
    d, L, V = cfg["hidden_size"], cfg["num_hidden_layers"], cfg["vocab_size"]
    H, F = cfg["num_attention_heads"], cfg["intermediate_size"]
    Hkv = cfg.get("num_key_value_heads", H)
    dh = cfg.get("head_dim") or d // H
    bias = cfg["model_type"] == "qwen2" or cfg.get("attention_bias")
    W = {"model.embed_tokens.weight": rand(rng, V, d, std=1.0)}
    for l in range(L):
        p = "model.layers.%d." % l
        W[p + "input_layernorm.weight"] = 1 + rand(rng, d, std=0.1)
        W[p + "self_attn.q_proj.weight"] = rand(rng, H * dh, d, std=0.5)
        W[p + "self_attn.k_proj.weight"] = rand(rng, Hkv * dh, d, std=0.5)
        W[p + "self_attn.v_proj.weight"] = rand(rng, Hkv * dh, d, std=d ** -0.5)
        if bias:
            W[p + "self_attn.q_proj.bias"] = rand(rng, H * dh, std=0.2)
            W[p + "self_attn.k_proj.bias"] = rand(rng, Hkv * dh, std=0.2)
            W[p + "self_attn.v_proj.bias"] = rand(rng, Hkv * dh, std=0.2)
        if cfg["model_type"] == "qwen3":
            W[p + "self_attn.q_norm.weight"] = 1 + rand(rng, dh, std=0.3)
            W[p + "self_attn.k_norm.weight"] = 1 + rand(rng, dh, std=0.3)
        W[p + "self_attn.o_proj.weight"] = rand(rng, d, H * dh, std=(H * dh) ** -0.5)
        W[p + "post_attention_layernorm.weight"] = 1 + rand(rng, d, std=0.1)
        W[p + "mlp.gate_proj.weight"] = rand(rng, F, d)
        W[p + "mlp.up_proj.weight"] = rand(rng, F, d)
        W[p + "mlp.down_proj.weight"] = rand(rng, d, F, std=F ** -0.5)
    W["model.norm.weight"] = 1 + rand(rng, d, std=0.1)
    if not cfg.get("tie_word_embeddings", False):
        W["lm_head.weight"] = rand(rng, V, d)
    return W


def write_tokenizer(d, kind, vocab_size):
    """Tokenizer files of kind; returns the reference encoder."""
    if kind in ("gpt2", "gpt2-files", "llama3", "qwen"):
        pat = hf_ref.GPT2_PAT if kind.startswith("gpt2") else hf_ref.LLAMA3_PAT
        vocab, merges = hf_ref.byte_tokenizer(60, pat)
        added = [("<|endoftext|>", len(vocab))]
        bos = None
        if kind == "llama3":
            added = [("<|begin_of_text|>", len(vocab)), ("<|end_of_text|>", len(vocab) + 1)]
            bos = len(vocab)
        assert max(i for _, i in added) < vocab_size
        if kind == "gpt2-files":
            v = dict(vocab)
            v["<|endoftext|>"] = added[0][1]
            with open(os.path.join(d, "vocab.json"), "w") as f:
                json.dump(v, f)
            with open(os.path.join(d, "merges.txt"), "w") as f:
                f.write("#version: 0.2\n" + "".join("%s %s\n" % m for m in merges))
        else:
            tj = hf_ref.tokenizer_json(vocab, merges, kind if kind != "gpt2" else "gpt2", added, bos,
                                       merges_as_lists=kind == "qwen")
            with open(os.path.join(d, "tokenizer.json"), "w") as f:
                json.dump(tj, f)
        return hf_ref.ByteBPE(vocab, merges, pat, dict(added), bos, ignore_merges=kind == "llama3")
    vocab, merges = hf_ref.sp_tokenizer(60)
    assert len(vocab) <= vocab_size, len(vocab)
    with open(os.path.join(d, "tokenizer.json"), "w") as f:
        json.dump(hf_ref.tokenizer_json(vocab, merges, "sp"), f)
    return hf_ref.SpBPE(vocab, merges, 1)


MODELS = [
    # name, config, tokenizer kind, dtype, shards, gpt2 prefix
    ("gpt2-f32", {"model_type": "gpt2", "vocab_size": 360, "n_positions": 40, "n_embd": 32,
                  "n_layer": 2, "n_head": 4, "layer_norm_epsilon": 1e-5,
                  "activation_function": "gelu_new"}, "gpt2", "F32", 1, ""),
    ("gpt2-12heads-f32", {"model_type": "gpt2", "vocab_size": 360, "n_positions": 40, "n_embd": 48,
                          "n_layer": 2, "n_head": 12, "layer_norm_epsilon": 1e-5,
                          "activation_function": "gelu_new"}, "gpt2", "F32", 1, ""),
    ("distilgpt2-bf16-files", {"model_type": "gpt2", "vocab_size": 330, "n_positions": 32,
                               "n_embd": 24, "n_layer": 3, "n_head": 3, "n_inner": 40,
                               "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new"},
     "gpt2-files", "BF16", 2, "transformer."),
    ("llama-gqa-untied-f32-sharded", {"model_type": "llama", "vocab_size": 360, "hidden_size": 32,
                                      "intermediate_size": 48, "num_hidden_layers": 2,
                                      "num_attention_heads": 4, "num_key_value_heads": 2,
                                      "max_position_embeddings": 64, "rms_norm_eps": 1e-5,
                                      "rope_theta": 10000.0, "tie_word_embeddings": False,
                                      "hidden_act": "silu", "bos_token_id": 1}, "sp", "F32", 3, ""),
    ("llama3-scaled-f16-tied", {"model_type": "llama", "vocab_size": 360, "hidden_size": 32,
                                "intermediate_size": 64, "num_hidden_layers": 2,
                                "num_attention_heads": 4, "num_key_value_heads": 1,
                                "max_position_embeddings": 64, "rms_norm_eps": 1e-5,
                                "rope_theta": 500000.0, "tie_word_embeddings": True,
                                "rope_scaling": {"rope_type": "llama3", "factor": 8.0,
                                                 "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                                 "original_max_position_embeddings": 16},
                                "hidden_act": "silu"}, "llama3", "F16", 1, ""),
    ("qwen2-bias-bf16", {"model_type": "qwen2", "vocab_size": 360, "hidden_size": 32,
                         "intermediate_size": 40, "num_hidden_layers": 2, "num_attention_heads": 4,
                         "num_key_value_heads": 2, "max_position_embeddings": 64,
                         "rms_norm_eps": 1e-6, "rope_theta": 1000000.0,
                         "tie_word_embeddings": True, "hidden_act": "silu",
                         "use_sliding_window": False}, "qwen", "BF16", 1, ""),
    ("qwen3-qknorm-f32", {"model_type": "qwen3", "vocab_size": 360, "hidden_size": 32,
                          "intermediate_size": 48, "num_hidden_layers": 2, "num_attention_heads": 4,
                          "num_key_value_heads": 2, "head_dim": 16, "max_position_embeddings": 64,
                          "rms_norm_eps": 1e-6, "rope_theta": 1000000.0, "attention_bias": False,
                          "tie_word_embeddings": False, "hidden_act": "silu"}, "qwen", "F32", 2, ""),
]

SENTENCES = ["she sat by the river bank.", "They're here: 12 cats, 3:45!", "un café ☕  à 10h"]


def compare(dump, ref, what):
    """Every reference tensor against the dump's, and no dump tensor left unchecked."""
    got = {}
    for k, v in dump["tensors"].items():
        got[k] = v
    for l, layer in enumerate(dump["layers"]):
        for h, hd in enumerate(layer["heads"]):
            for k, v in hd.items():
                got["L%d.h%d.%s" % (l, h, k)] = v
        for k, v in layer.items():
            if k != "heads":
                got[k] = v
    worst, worst_name, missing = 0.0, "", []
    for name, r in ref.items():
        if name not in got:
            missing.append(name)
            continue
        a = np.array([[-np.inf if x is None else x for x in row] for row in got[name]], np.float64)
        r = r.detach().numpy()
        if a.shape != r.shape:
            missing.append("%s shape %s vs %s" % (name, a.shape, r.shape))
            continue
        inf = np.isinf(r)
        if (np.isinf(a) != inf).any():
            missing.append(name + " (-inf where the mask is not)")
            continue
        scale = max(np.abs(r[~inf]).max() if (~inf).any() else 0.0, 1e-6)
        err = np.abs(a[~inf] - r[~inf]).max() / scale if (~inf).any() else 0.0
        if err > worst:
            worst, worst_name = err, name
    extra = sorted(set(got) - set(ref))
    check(not missing and not extra, "%s: every tensor of the dump is checked (%d)%s" % (
        what, len(ref), "" if not missing and not extra else
        " missing: %s extra: %s" % (missing[:5], extra[:5])))
    check(worst <= TOL, "%s: max relative error %.2e (%s) <= %g" % (what, worst, worst_name or "-", TOL))


def pair_check(d, s, dump, ref, cfg, what):
    """dump --pair bank,river: every head's weight from "bank" to "river", highest first, as
    the reference's weights say."""
    toks = [t.strip().lower() for t in dump["tokens"]]
    q, k = toks.index("bank"), toks.index("river")
    L = cfg.get("n_layer", cfg.get("num_hidden_layers"))
    H = cfg.get("n_head", cfg.get("num_attention_heads"))
    want = sorted(((float(ref["L%d.h%d.weights" % (l, h)][q, k]), l, h) for l in range(L) for h in range(H)),
                  reverse=True)
    p = subprocess.run([ATTEND, "dump", "--model", d, "--sentence", s, "--pair", "bank,river",
                        "--format", "json"], capture_output=True, text=True)
    got = json.loads(p.stdout) if p.returncode == 0 else {}
    heads = got.get("heads", [])
    ok = got.get("from") == q and got.get("to") == k and len(heads) == L * H and \
        (heads[0]["layer"], heads[0]["head"]) == (want[0][1], want[0][2]) and \
        all(abs(a["weight"] - b[0]) <= 1e-4 for a, b in zip(heads, want))
    check(ok, "%s: --pair bank,river ranks every head as the reference (top: layer %d head %d, %.3f)"
          % (what, want[0][1], want[0][2], want[0][0]))


def next_check(d, s, ref, what):
    """dump --next 5: the five most likely next tokens and their probabilities, as the softmax
    of the reference's last row of logits."""
    r = ref["logits"][-1].detach().numpy()
    p = np.exp(r - r.max())
    p /= p.sum()
    want = list(np.argsort(-p, kind="stable")[:5])
    out = subprocess.run([ATTEND, "dump", "--model", d, "--sentence", s, "--next", "5", "--format",
                          "json"], capture_output=True, text=True)
    got = json.loads(out.stdout)["next"] if out.returncode == 0 else []
    ok = [g["id"] for g in got] == [int(w) for w in want] and \
        all(abs(g["p"] - p[w]) <= 1e-4 for g, w in zip(got, want))
    check(ok, "%s: --next 5 gives the reference's top tokens %s (p %.3f first)" % (
        what, [int(w) for w in want], p[want[0]]))


def write_model(root, spec, rng):
    """Writes model spec (a MODELS row) as root/NAME: its directory, tokenizer encoder and
    stored weights."""
    name, cfg, tok_kind, dtype, shards, prefix = spec
    d = os.path.join(root, name)
    os.mkdir(d)
    enc = write_tokenizer(d, tok_kind, cfg["vocab_size"])
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(cfg, f)
    if cfg["model_type"] == "gpt2":
        W = gpt2_weights(rng, cfg, prefix, cfg.get("tie_word_embeddings", True))
    else:
        W = llama_weights(rng, cfg)
    return d, enc, hf_ref.save_weights(d, W, dtype, shards)


def run_model(root, spec, rng):
    name, cfg, tok_kind, dtype, shards, prefix = spec
    d, enc, stored = write_model(root, spec, rng)
    for s in SENTENCES:
        ids = enc.encode(s)
        if cfg["model_type"] == "gpt2":
            ref = hf_ref.gpt2_forward(stored, cfg, ids, prefix)
        else:
            ref = hf_ref.llama_forward(stored, cfg, ids)
        p = subprocess.run([ATTEND, "dump", "--model", d, "--sentence", s, "--format", "json"],
                           capture_output=True, text=True)
        what = "%s %r" % (name, s)
        check(p.returncode == 0, "%s: dump exits 0%s" % (what, "" if p.returncode == 0 else ": " + p.stderr.strip()[:300]))
        if p.returncode:
            continue
        dump = json.loads(p.stdout)
        check(dump.get("token_ids") == ids, "%s: token_ids %s == reference %s" % (what, dump.get("token_ids"), ids))
        if dump.get("token_ids") == ids:
            compare(dump, ref, what)
        if "river bank" in s:
            pair_check(d, s, dump, ref, cfg, what)
            next_check(d, s, ref, what)
    if dtype in ("BF16", "F16"):
        twin_check(root, d, name, stored, cfg)
    return d


def twin_check(root, d, name, stored, cfg):
    """A half-precision model's weights stay half in its mapped file and are widened inside the
    products: every tensor of its dump has the bits of the same weights written as float32."""
    d2 = os.path.join(root, name + "-as-f32")
    shutil.copytree(d, d2, ignore=shutil.ignore_patterns("*.safetensors", "*.index.json"))
    hf_ref.save_weights(d2, {k: v.numpy().astype(np.float32) for k, v in stored.items()}, "F32", 1)
    s = "she sat by the river bank."
    outs = [subprocess.run([ATTEND, "dump", "--model", x, "--sentence", s, "--format", "json"],
                           capture_output=True, text=True) for x in (d, d2)]
    same = all(o.returncode == 0 for o in outs)
    if same:
        a, b = (json.loads(o.stdout) for o in outs)
        same = a["tensors"] == b["tensors"] and a["layers"] == b["layers"] and len(a["layers"]) == cfg.get(
            "n_layer", cfg.get("num_hidden_layers"))
    check(same, "%s: every tensor of the dump has the bits of its float32 twin" % name)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--write":
        # hf_models.py --write DIR NAME: only writes model NAME (a MODELS row) as DIR/NAME
        # (tests/e2e/test_hf_player.sh opens it in the player)
        spec = [m for m in MODELS if m[0] == sys.argv[3]]
        if not spec:
            print("no model %s (%s)" % (sys.argv[3], ", ".join(m[0] for m in MODELS)))
            return 2
        write_model(sys.argv[2], spec[0], np.random.default_rng(27))
        return 0
    rng = np.random.default_rng(27)
    root = tempfile.mkdtemp(prefix="attend-hf-")
    try:
        for spec in MODELS:
            run_model(root, spec, rng)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
