#!/usr/bin/python3
"""hf_bad.py - broken Hugging Face model directories: each is refused by `attend dump --model`
with exit status 1 (never a crash or a signal) and a message naming the file and the tensor or
key at fault. Prints "N passed, N failed".
"""
import json
import os
import shutil
import struct
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


CFG = {"model_type": "gpt2", "vocab_size": 330, "n_positions": 16, "n_embd": 8, "n_layer": 2,
       "n_head": 2, "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new"}


def good(root, name, shards=1):
    d = os.path.join(root, name)
    os.mkdir(d)
    hf_models.write_tokenizer(d, "gpt2", CFG["vocab_size"])
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(CFG, f)
    W = hf_models.gpt2_weights(np.random.default_rng(1), CFG, "", True)
    hf_ref.save_weights(d, W, "F32", shards)
    return d


def header(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        h = json.loads(f.read(n))
        rest = f.read()
    return h, rest


def rewrite(path, h, rest, pad=True):
    b = json.dumps(h).encode()
    if pad:
        b += b" " * (-len(b) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(b)) + b + rest)


def expect(d, words, what):
    p = subprocess.run([ATTEND, "dump", "--model", d, "--sentence", "the river bank"],
                       capture_output=True, text=True, timeout=60)
    out = p.stdout + p.stderr
    missing = [w for w in words if w not in out]
    check(p.returncode == 1 and not missing,
          "%s: exit %d (want 1), message names %s%s" % (what, p.returncode, words,
                                                        "" if not missing else ": got " + out.strip()[:300]))


def main():
    root = tempfile.mkdtemp(prefix="attend-hfbad-")
    try:
        cases(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


def cases(root):
    n = [0]

    def fresh(shards=1):
        n[0] += 1
        d = good(root, "m%d" % n[0], shards)
        return d, os.path.join(d, "model.safetensors")

    d, st = fresh()
    p = subprocess.run([ATTEND, "dump", "--model", d, "--sentence", "the river bank"],
                       capture_output=True, text=True)
    check(p.returncode == 0, "the unbroken model dumps (exit %d %s)" % (p.returncode, p.stderr[:200]))

    d, st = fresh()
    size = os.path.getsize(st)
    with open(st, "r+b") as f:
        f.truncate(size // 2)
    expect(d, ["model.safetensors", "run past the end", "tensor \""], "a truncated safetensors")

    d, st = fresh()
    with open(st, "r+b") as f:
        f.truncate(5)
    expect(d, ["model.safetensors", "truncated"], "a safetensors of 5 bytes")

    d, st = fresh()
    with open(st, "r+b") as f:
        f.write(struct.pack("<Q", 50_000_000))
    expect(d, ["model.safetensors", "header length", "past the end of the file"],
           "a header length past the end of the file")

    d, st = fresh()
    with open(st, "r+b") as f:
        f.write(struct.pack("<Q", 100_000_001))
    expect(d, ["model.safetensors", "100000001", "more than the 100000000"], "a 100 MB header")

    d, st = fresh()
    h, rest = header(st)
    h["h.0.ln_1.bias"]["data_offsets"] = list(h["h.0.ln_1.weight"]["data_offsets"])
    rewrite(st, h, rest)
    expect(d, ["model.safetensors", "overlap", "h.0.ln_1"], "overlapping data_offsets")

    d, st = fresh()
    h, rest = header(st)
    b, e = h["ln_f.bias"]["data_offsets"]
    h["ln_f.bias"]["data_offsets"] = [len(rest) - 4, len(rest) - 4 + (e - b)]
    rewrite(st, h, rest)
    expect(d, ["model.safetensors", "ln_f.bias", "past the end of the data"], "data_offsets past the end")

    d, st = fresh()
    h, rest = header(st)
    h["ln_f.bias"]["data_offsets"] = [0, 2 ** 62]
    rewrite(st, h, rest)
    expect(d, ["model.safetensors", "ln_f.bias", "4611686018427387904", "2^53", "9007199254740992"],
           "data_offsets [0, 2^62] (the limit named)")

    d, st = fresh()
    h, rest = header(st)
    h["wpe.weight"]["dtype"] = "F16"
    rewrite(st, h, rest)
    expect(d, ["model.safetensors", "wpe.weight", "F16", "bytes"], "a dtype that does not match the bytes")

    d, st = fresh()
    h, rest = header(st)
    h["wpe.weight"]["shape"] = [8, 16]
    rewrite(st, h, rest)
    expect(d, ["model.safetensors", "wpe.weight", "[8, 16]", "config.json says [16, 8]"],
           "a tensor whose shape is not the config's")

    d, st = fresh()
    h, rest = header(st)
    h["h.1.ln_2.weight"]["dtype"] = "I32"
    rewrite(st, h, rest)
    expect(d, ["model.safetensors", "h.1.ln_2.weight", "I32"], "a tensor of an unsupported dtype")

    d, st = fresh()
    h, rest = header(st)
    h["h.1.mlp.c_fc.bias2"] = h.pop("h.1.mlp.c_fc.bias")
    rewrite(st, h, rest)
    expect(d, ["model.safetensors", "h.1.mlp.c_fc.bias", "missing"], "a missing tensor")

    d, st = fresh()
    with open(st, "r+b") as f:
        f.seek(8)
        f.write(b"[1, 2")
    expect(d, ["model.safetensors", "not a JSON object"], "a header that is not JSON")

    d, st = fresh(shards=2)
    os.remove(os.path.join(d, "model-00002-of-00002.safetensors"))
    expect(d, ["model.safetensors.index.json", "model-00002-of-00002.safetensors", "missing"],
           "a missing shard")

    for key, val, words in (
            ("model_type", "bert", ["config.json", "model_type \"bert\" is not supported"]),
            ("activation_function", "relu", ["config.json", "activation_function", "relu"]),
            ("n_head", 3, ["config.json", "n_embd", "n_head"]),
            ("n_layer", None, ["config.json", "n_layer", "missing"])):
        d, st = fresh()
        cfg = dict(CFG)
        if val is None:
            del cfg[key]
        else:
            cfg[key] = val
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump(cfg, f)
        expect(d, words, "config.json with %s = %r" % (key, val))

    d, st = fresh()
    cfg = {"model_type": "llama", "vocab_size": 330, "hidden_size": 8, "intermediate_size": 8,
           "num_hidden_layers": 1, "num_attention_heads": 2,
           "rope_scaling": {"rope_type": "yarn", "factor": 4.0}}
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(cfg, f)
    expect(d, ["config.json", "rope_scaling", "yarn"], "an unsupported rope_scaling")

    d, st = fresh()
    tj = os.path.join(d, "tokenizer.json")
    with open(tj) as f:
        t = json.load(f)
    t["model"]["merges"][3] = "nospace"
    with open(tj, "w") as f:
        json.dump(t, f)
    expect(d, ["tokenizer.json", "model.merges[3]"], "a tokenizer.json with a bad merge")

    d, st = fresh()
    with open(os.path.join(d, "tokenizer.json"), "w") as f:
        json.dump({"model": {"type": "Unigram", "vocab": [["a", 0]]}}, f)
    expect(d, ["tokenizer.json", "Unigram", "not supported"], "a Unigram tokenizer")

    d, st = fresh()
    os.remove(os.path.join(d, "tokenizer.json"))
    expect(d, [d, "no tokenizer"], "no tokenizer file")


if __name__ == "__main__":
    sys.exit(main())
