#!/usr/bin/python3
"""hf_gpt2.py - a real-model-sized forward (bench/run.sh calls it; a benchmark, not a test).

A GPT-2-small-shaped Hugging Face directory (12 layers, d_model 768, 12 heads, vocab 50257,
1024 positions, float32, tied head: 124 M weights, a 498 MB model.safetensors) with seeded
random weights is written once to BUILD/bench/gpt2-small. At 12 tokens:
  * attend (build/tools/bench_engine serve DIR 64, "keep": the forward, then every head's
    attention map read, as the heatmap and small multiples do);
  * PyTorch at 1 thread on the same weights and ids, GPT-2 written as in modeling_gpt2.py,
    every attention map kept (output_attentions): eager, and TorchScript (torch.jit.trace)
    run under torch.inference_mode; its logits checked against attend's;
  * the share of one core's peak attend reaches, the peak measured (bench_engine peak: FMA
    throughput at the vector width attend's matrix products use);
  * time to first heatmap: the whole `attend dump --model DIR --layer 0 --head 0` process
    (load, map, tokenize, forward, print), median of 5, with the file in the page cache.
Interleaved rounds, medians compared with medians (BENCH_ROUNDS, default 7)."""
import json
import math
import os
import statistics
import struct
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "ref"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hf_ref  # noqa: E402
from compare import Peer, measured_peak, peer_env  # noqa: E402

BUILD = os.environ.get("BUILD", "build")
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "7"))
N = 12
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
d, mode = sys.argv[1], sys.argv[2]
torch.set_num_threads(1)
F = torch.nn.functional
with open(d + "/model.safetensors", "rb") as f:
    n = struct.unpack("<Q", f.read(8))[0]; hdr = json.loads(f.read(n)); data = f.read()
W = {k: torch.from_numpy(np.frombuffer(data, "<f4", int(np.prod(v["shape"])), v["data_offsets"][0]).reshape(v["shape"]).copy())
     for k, v in hdr.items() if k != "__metadata__"}
cfg = json.load(open(d + "/config.json"))
D, H, L, V = cfg["n_embd"], cfg["n_head"], cfg["n_layer"], cfg["vocab_size"]
dh = D // H
class GPT2(torch.nn.Module):
    def forward(self, ids):
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
def ids_of(n): return torch.tensor([6 + (i * 37) % (V - 6) for i in range(n)])
m = GPT2()
if mode == "script":
    with torch.inference_mode():
        m = torch.jit.trace(m, (ids_of(12),), check_trace=False)
        m = torch.jit.freeze(m.eval()) if hasattr(torch.jit, "freeze") and isinstance(m, torch.jit.ScriptModule) else m
ctx = torch.inference_mode
for line in sys.stdin:
    cmd, n, *rest = line.split(); n = int(n)
    if cmd == "blas":
        libs = sorted({l.split()[-1] for l in open("/proc/self/maps") if "blas" in l.lower() and "/" in l})
        print("libs=" + ",".join(libs), flush=True); continue
    ids = ids_of(n)
    with ctx():
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


def main():
    d = os.path.join(BUILD, "bench", "gpt2-small")
    make_model(d)
    peer = os.path.join(BUILD, "bench", "gpt2_torch_peer.py")
    with open(peer, "w") as f:
        f.write(TORCH_PEER)
    peers = {"attend": Peer("attend", [BUILD + "/tools/bench_engine", "serve", d, "64"], peer_env(None, 1)),
             "torch_eager": Peer("torch eager", ["/usr/bin/python3", peer, d, "eager"], peer_env("openblas", 1)),
             "torch_script": Peer("torch script", ["/usr/bin/python3", peer, d, "script"], peer_env("openblas", 1))}
    for k in ("torch_eager", "torch_script"):
        print("# %s: %s" % (k, peers[k].ask("blas 1")))
    ref = peers["attend"].ask("check %d" % N).split()
    for k in ("torch_eager", "torch_script"):
        got = peers[k].ask("check %d" % N).split()
        same = got[1] == ref[1] and abs(float(got[0]) - float(ref[0])) <= 1e-3 * (1 + abs(float(ref[0])))
        print("# %s logits %s, attend %s: %s" % (k, got, ref, "the same" if same else "DIFFERENT"))
    iters = {}
    for k, p in peers.items():
        p.ask("keep %d 2" % N)
        us = float(p.ask("keep %d 2" % N).split()[0])
        iters[k] = max(1, int(200000 / max(us, 1.0)))
    times = {k: [] for k in peers}
    order = list(peers)
    for r in range(ROUNDS):
        for k in order[r % 3:] + order[:r % 3]:
            times[k].append([float(x) for x in peers[k].ask("keep %d %d" % (N, iters[k])).split()])
    peak, isa, _ = measured_peak(peers["attend"])
    flops = float(peers["attend"].ask("flops %d" % N))
    med = {k: [statistics.median(t[i] for t in v) for i in range(3)] for k, v in times.items()}
    aw, ac, af = med["attend"]
    te, ts = med["torch_eager"], med["torch_script"]
    print("# medians over %d interleaved rounds; ratio_X = X's median / attend's median (wall), "
          "cpu_ratio_X on CPU time; torch_eager and torch_script (jit.trace + freeze) both under "
          "inference_mode; faults = minor page faults per forward; pct_peak against the measured "
          "%s peak (%.1f GFLOP/s)" % (ROUNDS, isa, peak))
    print("gpt2-small n=%d threads=1 attend_us=%.0f torch_eager_us=%.0f torch_script_us=%.0f "
          "ratio_eager=%.2f ratio_script=%.2f attend_cpu_us=%.0f torch_eager_cpu_us=%.0f "
          "torch_script_cpu_us=%.0f cpu_ratio_eager=%.2f cpu_ratio_script=%.2f attend_faults=%.1f "
          "torch_eager_faults=%.1f torch_script_faults=%.1f pct_peak=%.1f peak_gflops=%.1f "
          "weights_mb_read_per_forward=%.0f attend_weights_gb_s=%.1f"
          % (N, aw, te[0], ts[0], te[0] / aw, ts[0] / aw, ac, te[1], ts[1], te[1] / ac, ts[1] / ac,
             af, te[2], ts[2], 100.0 * flops / (ac * 1e-6) / (peak * 1e9), peak, 124.4e6 * 4 / 1e6,
             124.4e6 * 4 / (ac * 1e-6) / 1e9))
    for p in peers.values():
        p.close()
    # time to first heatmap: the whole process
    walls = []
    for _ in range(5):
        t0 = time.perf_counter()
        subprocess.run(["./attend", "dump", "--model", d, "--sentence", "She sat by the river bank.",
                        "--layer", "0", "--head", "0"], capture_output=True, check=True)
        walls.append(time.perf_counter() - t0)
    size = os.path.getsize(os.path.join(d, "model.safetensors")) / 1e6
    print("first-heatmap model_mb=%.0f dump_wall_ms=%.0f (median of 5, file in the page cache) min_ms=%.0f"
          % (size, statistics.median(walls) * 1e3, min(walls) * 1e3))
    lens_line(d, statistics.median(walls))


LENS_SENTENCE = "She sat by the river bank and read"  # 12 tokens with this tokenizer


def lens_line(d, heatmap_s):
    """The logit lens at every position and block (issue 36's target: under 0.5 s at 12
    tokens): the whole `attend dump --lens --format json` process, median of 5, beside the plain
    dump's time above (the rest is the lens: 12 blocks x 12 positions unembedded)."""
    walls, cpus, n = [], [], 0
    for _ in range(5):
        t0, c0 = time.perf_counter(), os.times()
        p = subprocess.run(["./attend", "dump", "--model", d, "--sentence", LENS_SENTENCE, "--lens",
                            "--format", "json"], capture_output=True, check=True, text=True)
        c1 = os.times()
        walls.append(time.perf_counter() - t0)
        cpus.append(c1.children_user + c1.children_system - c0.children_user - c0.children_system)
        n = len(json.loads(p.stdout)["token_ids"])
    print("lens n=%d blocks=%d dump_lens_wall_ms=%.0f dump_lens_cpu_ms=%.0f lens_only_wall_ms=%.0f "
          "(median of 5; target < 500 ms)" % (n, CFG["n_layer"] + 1, statistics.median(walls) * 1e3,
                                              statistics.median(cpus) * 1e3,
                                              (statistics.median(walls) - heatmap_s) * 1e3))


if __name__ == "__main__":
    main()
