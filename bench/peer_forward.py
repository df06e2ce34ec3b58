#!/usr/bin/python3
"""peer_forward.py - a benchmark peer for bench/compare.py: the forward pass of an attend
decoder model file (pre-norm LayerNorm, GELU-tanh, learned PE, final norm, untied LM head: the
shipped decoder's architecture) in PyTorch or numpy, with the weights read from the file, so
the peers and attend compute the same logits. Written as a performance-minded user would:
  torch        eager PyTorch under torch.inference_mode, every activation in a buffer
               allocated once per length and reused (out=, in place), so that a forward at
               512 tokens does not measure glibc handing memory back to the kernel;
  torchscript  the same forward torch.jit.trace'd (one trace per length) and frozen, run
               under torch.inference_mode;
  numpy        plain numpy (new arrays every step, as numpy is written).
A server on stdin/stdout:
  blas             -> one line naming the BLAS library this process has loaded
  check N          -> the sum and argmax of the last row of the logits for the bench ids
  run N ITERS      -> "WALL_US CPU_US FAULTS": per-forward wall and process CPU time and
                      minor page faults of ITERS runs
usage: peer_forward.py torch|torchscript|numpy MODEL.json THREADS"""
import base64
import ctypes
import json
import math
import resource
import sys
import time

import numpy as np

kind, path, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
doc = json.load(open(path))
cfg, W = doc["config"], doc["weights"]
assert cfg["arch"] == "decoder" and cfg["pe"] == "learned" and cfg["norm"] == "layernorm"
assert cfg["norm_placement"] == "pre" and cfg["ffn"] == "gelu" and not cfg["scale_embed"]
D, H, dh, L, V = cfg["d_model"], cfg["n_heads"], cfg["d_head"], cfg["n_layers"], cfg["vocab_size"]
eps = cfg["norm_eps"]


def arr(name):
    v = W[name]
    if isinstance(v, dict):
        return np.frombuffer(base64.b64decode(v["f32"]), dtype="<f4").reshape(v["shape"]).copy()
    return np.asarray(v, dtype=np.float32)


def bench_ids(n):
    """The ids every peer and attend run: no special tokens (<pad> would be masked)."""
    return [6 + (i * 37) % (V - 6) for i in range(n)]


def blas_name():
    """The BLAS shared object mapped into this process, and OpenBLAS's kernel if it is one."""
    libs = sorted({ln.split()[-1] for ln in open("/proc/self/maps") if "blas" in ln.lower() and "/" in ln})
    core = ""
    for lib in libs:
        try:
            so = ctypes.CDLL(lib)
            so.openblas_get_corename.restype = ctypes.c_char_p
            so.openblas_get_config.restype = ctypes.c_char_p
            core = " openblas_core=%s config=%r" % (so.openblas_get_corename().decode(),
                                                     so.openblas_get_config().decode())
            break
        except (OSError, AttributeError):
            continue
    return "libs=%s%s" % (",".join(libs) or "none", core)


if kind in ("torch", "torchscript"):
    import torch
    torch.set_num_threads(threads)
    T = {k: torch.from_numpy(arr(k)) for k in W}
    F = torch.nn.functional
    softmax_out, gelu_ = torch.ops.aten._softmax.out, torch._C._nn.gelu_
    ws = {}

    def buffers(n):
        """The forward's activations at n tokens, allocated once and reused (out=): a user
        who sees the allocator return memory to the kernel every forward writes it so."""
        if n not in ws:
            e = torch.empty
            ws[n] = {"x": e(n, D), "h": e(n, D), "qkv": e(3, n, H * dh), "s": e(H, n, n),
                     "p": e(H, n, n), "o": e(H, n, dh), "cat": e(n, H * dh), "y": e(n, D),
                     "u": e(n, cfg["d_ff"]), "lg": e(n, V),
                     "mask": torch.triu(torch.full((n, n), float("-inf")), 1)}
        return ws[n]

    def forward_eager(ids):
        """Eager, every activation in a reused buffer (out= / in place)."""
        n = ids.shape[0]
        b = buffers(n)
        x = torch.add(T["tok_embed"][ids], T["pos_embed"][:n], out=b["x"])
        for l in range(L):
            p = "dec.%d." % l
            h = F.layer_norm(x, (D,), T[p + "norm1.gain"], T[p + "norm1.bias"], eps)
            q = torch.mm(h, T[p + "attn.wq"], out=b["qkv"][0]).view(n, H, dh).transpose(0, 1)
            k = torch.mm(h, T[p + "attn.wk"], out=b["qkv"][1]).view(n, H, dh).transpose(0, 1)
            v = torch.mm(h, T[p + "attn.wv"], out=b["qkv"][2]).view(n, H, dh).transpose(0, 1)
            s = torch.baddbmm(b["mask"], q, k.transpose(1, 2), alpha=1.0 / math.sqrt(dh), out=b["s"])
            a = torch.bmm(softmax_out(s, -1, False, out=b["p"]), v, out=b["o"])
            cat = b["cat"].view(n, H, dh)
            cat.copy_(a.transpose(0, 1))
            x.add_(torch.mm(b["cat"], T[p + "attn.wo"], out=b["y"]))
            h = F.layer_norm(x, (D,), T[p + "norm2.gain"], T[p + "norm2.bias"], eps)
            u = torch.addmm(T[p + "ffn.b1"], h, T[p + "ffn.w1"], out=b["u"])
            x.add_(torch.addmm(T[p + "ffn.b2"], gelu_(u, approximate="tanh"), T[p + "ffn.w2"], out=b["y"]))
        x = F.layer_norm(x, (D,), T["dec.final.gain"], T["dec.final.bias"], eps)
        return torch.mm(x, T["lm_head"], out=b["lg"])

    def forward_plain(ids):
        """The same forward written plainly (new tensors), for torch.jit.trace."""
        n = ids.shape[0]
        x = T["tok_embed"][ids] + T["pos_embed"][:n]
        mask = torch.triu(torch.full((n, n), float("-inf")), 1)
        for l in range(L):
            p = "dec.%d." % l
            h = F.layer_norm(x, (D,), T[p + "norm1.gain"], T[p + "norm1.bias"], eps)
            q = (h @ T[p + "attn.wq"]).view(n, H, dh).transpose(0, 1)
            k = (h @ T[p + "attn.wk"]).view(n, H, dh).transpose(0, 1)
            v = (h @ T[p + "attn.wv"]).view(n, H, dh).transpose(0, 1)
            a = torch.softmax(torch.baddbmm(mask, q, k.transpose(1, 2), alpha=1.0 / math.sqrt(dh)), -1) @ v
            x = x + a.transpose(0, 1).reshape(n, H * dh) @ T[p + "attn.wo"]
            h = F.layer_norm(x, (D,), T[p + "norm2.gain"], T[p + "norm2.bias"], eps)
            u = F.gelu(torch.addmm(T[p + "ffn.b1"], h, T[p + "ffn.w1"]), approximate="tanh")
            x = x + torch.addmm(T[p + "ffn.b2"], u, T[p + "ffn.w2"])
        x = F.layer_norm(x, (D,), T["dec.final.gain"], T["dec.final.bias"], eps)
        return x @ T["lm_head"]

    traced = {}

    def run(ids):
        if kind == "torch":
            with torch.inference_mode():
                return forward_eager(torch.tensor(ids)).numpy()
        n = len(ids)
        with torch.inference_mode():
            if n not in traced:  # one trace per length (shapes are baked in), frozen
                class M(torch.nn.Module):
                    def forward(self, t):
                        return forward_plain(t)
                traced[n] = torch.jit.freeze(torch.jit.trace(M().eval(), (torch.tensor(ids),),
                                                             check_trace=False))
            return traced[n](torch.tensor(ids)).numpy()
else:
    A = {k: arr(k) for k in W}

    def ln(x, g, b):
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + np.float32(eps)) * g + b

    def gelu(x):
        return 0.5 * x * (1.0 + np.tanh(np.float32(0.7978845608028654) * (x + np.float32(0.044715) * x ** 3)))

    def run(ids):
        n = len(ids)
        x = A["tok_embed"][ids] + A["pos_embed"][:n]
        mask = np.triu(np.full((n, n), -np.inf, dtype=np.float32), 1)
        for l in range(L):
            p = "dec.%d." % l
            h = ln(x, A[p + "norm1.gain"], A[p + "norm1.bias"])
            q = (h @ A[p + "attn.wq"]).reshape(n, H, dh).transpose(1, 0, 2)
            k = (h @ A[p + "attn.wk"]).reshape(n, H, dh).transpose(1, 0, 2)
            v = (h @ A[p + "attn.wv"]).reshape(n, H, dh).transpose(1, 0, 2)
            s = q @ k.transpose(0, 2, 1) / np.float32(math.sqrt(dh)) + mask
            s = np.exp(s - s.max(-1, keepdims=True))
            a = (s / s.sum(-1, keepdims=True)) @ v
            x = x + a.transpose(1, 0, 2).reshape(n, H * dh) @ A[p + "attn.wo"]
            h = ln(x, A[p + "norm2.gain"], A[p + "norm2.bias"])
            x = x + gelu(h @ A[p + "ffn.w1"] + A[p + "ffn.b1"]) @ A[p + "ffn.w2"] + A[p + "ffn.b2"]
        return ln(x, A["dec.final.gain"], A["dec.final.bias"]) @ A["lm_head"]

for line in sys.stdin:
    cmd = line.split()
    if not cmd:
        continue
    if cmd[0] == "blas":
        run(bench_ids(4))
        out = blas_name()
    elif cmd[0] == "check":
        lg = run(bench_ids(int(cmd[1])))
        out = "%.6f %d" % (float(lg[-1].sum()), int(lg[-1].argmax()))
    elif cmd[0] == "run":
        ids, iters = bench_ids(int(cmd[1])), int(cmd[2])
        f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        w0, c0 = time.perf_counter(), time.process_time()
        for _ in range(iters):
            run(ids)
        w1, c1 = time.perf_counter(), time.process_time()
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0
        out = "%.3f %.3f %.1f" % ((w1 - w0) / iters * 1e6, (c1 - c0) / iters * 1e6, faults / iters)
    else:
        out = "error: unknown command %s" % cmd[0]
    print(out, flush=True)
