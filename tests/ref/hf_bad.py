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


def expect_not(d, words, absent, what, args=None):
    """Like expect, and none of absent appears in the output."""
    p = subprocess.run([ATTEND, "dump", "--model", d, "--sentence", "the river bank"] + (args or []),
                       capture_output=True, text=True, timeout=60)
    out = p.stdout + p.stderr
    missing = [w for w in words if w not in out]
    leaked = [w for w in absent if w in out]
    check(p.returncode == 1 and not missing and not leaked,
          "%s: exit %d (want 1), names %s, never %s%s" % (
              what, p.returncode, words, absent,
              "" if not (missing or leaked) else ": got " + out.strip()[:400]))


def hostile(root, fresh):
    """Issue 39: messages that name the file's own keys and tensors and never echo contents."""
    # a symlinked model.safetensors pointing at another file: its first 8 bytes are not echoed
    d, st = fresh()
    secret = os.path.join(root, "secret.txt")
    with open(secret, "wb") as f:
        f.write(b"password=hunter2\n" * 4)
    os.remove(st)
    os.symlink(secret, st)
    n = struct.unpack("<Q", b"password")[0]
    expect_not(d, ["model.safetensors", "header length"], [str(n), "hunter2", "password"],
               "a model.safetensors linked to another file")
    # a symlinked config.json: its model_type value is not quoted
    d, st = fresh()
    with open(os.path.join(root, "other.json"), "w") as f:
        json.dump({"model_type": "hunter2-private"}, f)
    os.remove(os.path.join(d, "config.json"))
    os.symlink(os.path.join(root, "other.json"), os.path.join(d, "config.json"))
    expect_not(d, ["config.json", "model_type", "gpt2"], ["hunter2"], "a config.json linked to another file")
    # the file's own keys, exact integers
    for key, val, words, absent in (
            ("layer_norm_epsilon", 2.0, ["\"layer_norm_epsilon\""], ["config.norm_eps"]),
            ("n_embd", 2147483648, ["2147483648", "n_embd"], ["e+09"]),
            ("n_head", 2.5, ["n_head", "2.5"], [])):
        d, st = fresh()
        cfg = dict(CFG)
        cfg[key] = val
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump(cfg, f)
        expect_not(d, ["config.json"] + words, absent, "config.json %s = %r" % (key, val))
    d, st = fresh()
    lcfg = {"model_type": "llama", "vocab_size": 330, "hidden_size": 8, "intermediate_size": 8,
            "num_hidden_layers": 1, "num_attention_heads": 2, "rope_theta": 0.5}
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(lcfg, f)
    expect_not(d, ["config.json", "\"rope_theta\""], ["config.rope_base"], "rope_theta 0.5")
    lcfg["rope_theta"] = 10000.0
    lcfg["head_dim"] = 3
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(lcfg, f)
    expect_not(d, ["config.json", "\"head_dim\""], ["config.d_head"], "head_dim 3 (odd, RoPE)")
    # a key given twice: refused, at its line and column (cJSON kept the first n_head)
    d, st = fresh()
    with open(os.path.join(d, "config.json"), "w") as f:
        f.write(json.dumps(CFG)[:-1] + ',\n  "n_head": 4}')
    expect(d, ["config.json:2:3", "\"n_head\" appears twice"], "config.json with n_head twice")
    # nested past cJSON's limit: said so, not "a syntax error"
    d, st = fresh()
    with open(os.path.join(d, "config.json"), "w") as f:
        f.write("[" * 1200 + "]" * 1200)
    expect_not(d, ["config.json", "nested more than 1000"], ["syntax error"], "JSON nested 1200 deep")
    # a NaN in the weights names the tensor
    d, st = fresh()
    h, rest = header(st)
    b, e = h["h.1.mlp.c_fc.bias"]["data_offsets"]
    rest = rest[:b + 8] + struct.pack("<f", float("nan")) + rest[b + 12:]
    rewrite(st, h, rest)
    expect(d, ["NaN", "h.1.mlp.c_fc.bias", "[2]"], "a NaN weight is named")
    # data_offsets of 1e300: a short number, and the reason is not cut off
    d, st = fresh()
    h, rest = header(st)
    h["ln_f.bias"]["data_offsets"] = [0, 1e300]
    rewrite(st, h, rest)
    expect(d, ["ln_f.bias", "1e+300", "2^53", "far past any file"], "data_offsets [0, 1e300]")
    # a tensor present in two shards is named as such
    d, st = fresh(shards=2)
    s1, s2 = (os.path.join(d, "model-0000%d-of-00002.safetensors" % i) for i in (1, 2))
    h1, r1 = header(s1)
    h2, r2 = header(s2)
    name = sorted(k for k in h1 if k != "__metadata__")[0]
    b, e = h1[name]["data_offsets"]
    h2[name] = dict(h1[name], data_offsets=[len(r2), len(r2) + e - b])
    rewrite(s2, h2, r2 + r1[b:e])
    expect(d, [name, "given twice", "model-00001-of-00002", "model-00002-of-00002"],
           "a tensor in two shards")
    # the weights file truncated while plain mode has it open: SIGBUS killed attend (exit 135)
    # with no message; now the next run says the file changed, and attend goes on
    d, st = fresh()
    env = dict(os.environ, XDG_STATE_HOME=os.path.join(root, "state-sigbus"))
    pr = subprocess.Popen([ATTEND, "--plain", "--model", d, "--lesson", "real-models", "--page", "4"],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          env=env)
    seen = b""
    while b"Keys:" not in seen:  # a condition: the page is up, the weights mapped and read
        line = pr.stdout.readline()
        if not line:
            break
        seen += line
    with open(st, "r+b") as f:
        f.truncate(64)
    out, _ = pr.communicate(b"edit the river bank\nq\n", timeout=120)
    out = (seen + out).decode("utf-8", "replace")
    check(pr.returncode == 0 and "the model file changed while open" in out and st in out,
          "a weights file truncated while open: said, no SIGBUS (exit %d): %s" % (
              pr.returncode, out.strip()[-300:]))
    # a dangling model.safetensors (an interrupted download)
    d, st = fresh()
    os.remove(st)
    os.symlink(os.path.join(d, "blobs-partial"), st)
    expect(d, ["model.safetensors", "symbolic link to a missing file", "blobs-partial"],
           "a dangling model.safetensors link")


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
    expect(d, ["model.safetensors", "header length over the 100000000"], "a 100 MB header")

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
    hostile(root, fresh)


if __name__ == "__main__":
    sys.exit(main())
