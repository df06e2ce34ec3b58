#!/usr/bin/python3
"""hf_shapes.py - `attend shapes` (the config exercise: every count and shape from config.json
alone) against counts computed here from the same config.json files by the models' published
definitions, for the shipped data/hf/*/config.json; and, for small random models written by
hf_models.py, the weights `shapes` lists are exactly the tensors in the files (names, shapes).
Prints "N passed, N failed".
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hf_models  # noqa: E402
import hf_ref  # noqa: E402

ATTEND = os.environ.get("ATTEND", "./attend")
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
        print("ok - " + what)
    else:
        failed += 1
        print("FAIL - " + what)


def expected(c):
    """Parameter counts from config.json by the published definitions."""
    if c["model_type"] == "gpt2":
        d, L, V, P = c["n_embd"], c["n_layer"], c["vocab_size"], c["n_positions"]
        F = c.get("n_inner") or 4 * d
        layer = 2 * d + (d * 3 * d + 3 * d) + (d * d + d) + 2 * d + (d * F + F) + (F * d + d)
        embed = V * d + P * d
        total = embed + L * layer + 2 * d + (0 if c.get("tie_word_embeddings", True) else V * d)
        kv = 2 * L * d
        q = [d, 3 * d]
    else:
        d, L, V = c["hidden_size"], c["num_hidden_layers"], c["vocab_size"]
        H = c["num_attention_heads"]
        Hkv = c.get("num_key_value_heads", H)
        dh = c.get("head_dim") or d // H
        F = c["intermediate_size"]
        layer = d + H * dh * d + 2 * Hkv * dh * d + d * H * dh + d + 3 * d * F
        if c["model_type"] == "qwen2" or c.get("attention_bias"):
            layer += H * dh + 2 * Hkv * dh
        if c["model_type"] == "qwen3":
            layer += 2 * dh
        embed = V * d
        total = embed + L * layer + d + (0 if c.get("tie_word_embeddings", False) else V * d)
        kv = 2 * L * Hkv * dh
        q = [H * dh, d]
    return layer, embed, total, kv, q


def shapes(path):
    p = subprocess.run([ATTEND, "shapes", path, "--format", "json"], capture_output=True, text=True)
    if p.returncode:
        return None, p.stderr
    return json.loads(p.stdout), ""


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data", "hf")
    configs = sorted(glob.glob(os.path.join(root, "*", "config.json")))
    check(len(configs) >= 3, "data/hf ships %d configs" % len(configs))
    for cp in configs:
        c = json.load(open(cp))
        s, err = shapes(os.path.dirname(cp))
        name = os.path.basename(os.path.dirname(cp))
        check(s is not None, "%s: shapes runs (%s)" % (name, err.strip()[:200]))
        if s is None:
            continue
        layer, embed, total, kv, q = expected(c)
        check((s["per_layer"], s["embeddings"], s["params"], s["kv_cache_values_per_token"]) ==
              (layer, embed, total, kv),
              "%s: per layer %d, embeddings %d, total %d, KV %d (computed here: %d %d %d %d)" % (
                  name, s["per_layer"], s["embeddings"], s["params"], s["kv_cache_values_per_token"],
                  layer, embed, total, kv))
        qname = "h.0.attn.c_attn.weight" if c["model_type"] == "gpt2" else "model.layers.0.self_attn.q_proj.weight"
        got = [w["shape"] for w in s["weights"] if w["name"] == qname]
        check(got == [q], "%s: %s is %s (computed here: %s)" % (name, qname, got, q))
        check(sum(w["count"] for w in s["weights"]) == s["params"], "%s: the weights sum to the total" % name)
    tmp = tempfile.mkdtemp(prefix="attend-shapes-")
    try:
        rng = np.random.default_rng(5)
        for spec in hf_models.MODELS:
            mname, cfg, tok, dtype, shards, prefix = spec
            d = os.path.join(tmp, mname)
            os.mkdir(d)
            with open(os.path.join(d, "config.json"), "w") as f:
                json.dump(cfg, f)
            W = hf_models.gpt2_weights(rng, cfg, prefix, True) if cfg["model_type"] == "gpt2" \
                else hf_models.llama_weights(rng, cfg)
            files = {k: list(v.shape) for k, v in W.items() if not k.endswith("attn.bias") or "c_attn" in k}
            s, err = shapes(d)
            if s is None:
                check(False, "%s: shapes runs: %s" % (mname, err[:200]))
                continue
            pre = prefix if cfg["model_type"] == "gpt2" else ""
            listed = {(w["name"] if w["name"].startswith("lm_head") else pre + w["name"]): w["shape"]
                      for w in s["weights"]}
            check(listed == files, "%s: shapes lists exactly the %d tensors a model of this config "
                  "holds%s" % (mname, len(files), "" if listed == files else ": %s" % sorted(
                      set(listed.items()) ^ set((k, tuple(v)) for k, v in files.items()))[:4]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
