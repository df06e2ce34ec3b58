#!/usr/bin/python3
"""compare.py - attend against PyTorch and numpy, like with like (bench/run.sh calls it).

Forward: the shipped decoder (data/decoder.json) at 6, 16 and 32 tokens, and the same
architecture with max_len 512 (seeded random weights, written by bench_engine widen) at 512
tokens. Every peer runs the same weights on the same ids (their logits are checked against
attend's first), one process each, kept alive: attend (build/tools/bench_engine serve), torch
and numpy against OpenBLAS, and torch and numpy against the reference BLAS (LD_LIBRARY_PATH
picks the libblas.so.3 each loads; the line says which it actually mapped). Threads: 1 for
every peer; at 512 tokens also 2 for the OpenBLAS peers (attend's forward is one thread).
Each peer is warmed up, then timed in interleaved rounds (every round runs every peer once per
size, in a rotated order) for about 30 ms a turn; wall and process CPU time per forward, the
median and min over rounds.

Training: build/tools/trainbench against bench/train_torch.py on data/configs/decoder.json,
threads 1 and 2 (OpenBLAS) and 1 (reference BLAS), interleaved rounds; tokens/s from wall and
from CPU time, median and best.

Environment: BENCH_ROUNDS (default 9), TRAIN_ROUNDS (5), TRAIN_STEPS (attend, 300),
TORCH_TRAIN_STEPS (100), BENCH_ONLY=forward|train."""
import os
import statistics
import subprocess
import sys

BUILD = os.environ.get("BUILD", "build")
PY = "/usr/bin/python3"
LIBDIR = "/usr/lib/x86_64-linux-gnu"
BLAS_DIRS = {"openblas": LIBDIR + "/openblas-pthread", "reference": LIBDIR + "/blas"}
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "9"))


def peer_env(blas, threads):
    """The environment of a peer: its BLAS, its thread count, and no OpenBLAS overrides
    (OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE may be set on this machine and pick a slower kernel)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "LD_LIBRARY_PATH")}
    if blas:
        env["LD_LIBRARY_PATH"] = BLAS_DIRS[blas]
    for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env[k] = str(threads)
    return env


class Peer:
    """One long-lived benchmark process speaking bench/peer_forward.py's protocol."""

    def __init__(self, name, argv, env):
        self.name = name
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env,
                                  text=True, bufsize=1)

    def ask(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        out = self.p.stdout.readline().strip()
        if not out or out.startswith("error"):
            raise RuntimeError("%s: %r -> %r" % (self.name, line, out))
        return out

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def cpu_peak(ghz):
    """Peak single-precision GFLOP/s of one core: 2 FMA units x vector floats x 2 flops x the
    clock (every x86 core with AVX2 since Haswell / Zen 2 issues two vector FMAs a cycle); the
    clock as bench_engine measured it, else /proc/cpuinfo's."""
    flags, mhz = set(), 0.0
    for ln in open("/proc/cpuinfo"):
        if ln.startswith("flags") and not flags:
            flags = set(ln.split(":")[1].split())
        if ln.startswith("cpu MHz") and not mhz:
            mhz = float(ln.split(":")[1])
    if ghz > 0:
        mhz = ghz * 1000.0
    floats = 16 if "avx512f" in flags else 8 if "avx2" in flags else 4
    return 2 * floats * 2 * mhz / 1000.0, floats, mhz


def forward_bench():
    models = {"shipped": "data/decoder.json", "long": os.path.join(BUILD, "bench", "decoder-512.json")}
    os.makedirs(os.path.dirname(models["long"]), exist_ok=True)
    subprocess.run([BUILD + "/tools/bench_engine", "widen", models["shipped"], models["long"], "512"],
                   check=True)
    cases = [("shipped", 6, 1), ("shipped", 16, 1), ("shipped", 32, 1), ("long", 512, 1),
             ("long", 512, 2)]
    peers = {}
    for model in models:
        peers[(model, "attend", None, 1)] = Peer("attend", [BUILD + "/tools/bench_engine", "serve",
                                                           models[model]], peer_env(None, 1))
        for blas in BLAS_DIRS:
            for kind in ("torch", "numpy"):
                for th in ((1, 2) if model == "long" and blas == "openblas" else (1,)):
                    peers[(model, kind, blas, th)] = Peer(
                        "%s/%s/%d" % (kind, blas, th),
                        [PY, "bench/peer_forward.py", kind, models[model], str(th)],
                        peer_env(blas, th))
    peak, floats, mhz = cpu_peak(float(peers[("shipped", "attend", None, 1)].ask("ghz 1")))
    print("# one core's peak: 2 FMA units x %d floats x 2 flops x %.0f MHz (measured) = %.0f GFLOP/s "
          "(attend's matrix products use %d-float vectors here; its other kernels 8-float AVX2)"
          % (floats, mhz, peak, 16 if floats == 16 and not os.environ.get("ATTEND_NO_AVX512") else min(floats, 8)))
    for key, p in peers.items():
        if key[1] != "attend" and key[0] == "shipped":
            print("# %s: %s" % (p.name, p.ask("blas")))
    # the same logits: the last row's sum and argmax at every size
    for model, n, _ in cases:
        ref = peers[(model, "attend", None, 1)].ask("check %d" % n).split()
        for key, p in peers.items():
            if key[0] == model and key[1] != "attend":
                got = p.ask("check %d" % n).split()
                if got[1] != ref[1] or abs(float(got[0]) - float(ref[0])) > 1e-3 * (1 + abs(float(ref[0]))):
                    print("# WARNING: %s at %d tokens computes %s, attend %s" % (p.name, n, got, ref))
    # warm-up and calibration: about 30 ms a turn
    iters = {}
    for key, p in peers.items():
        for model, n, th in cases:
            if key[0] == model and (key[1] == "attend" or key[3] == th):
                p.ask("run %d 3" % n)
                us = float(p.ask("run %d 3" % n).split()[0])
                iters[(key, n)] = max(1, min(20000, int(30000 / max(us, 1.0))))
    times = {k: [] for k in iters}
    order = sorted(iters, key=str)
    for r in range(ROUNDS):
        rot = order[r % len(order):] + order[:r % len(order)]
        for key, n in rot:
            w, c = (float(x) for x in peers[key].ask("run %d %d" % (n, iters[(key, n)])).split())
            times[(key, n)].append((w, c))
    for model, n, th in cases:
        flops = float(peers[(model, "attend", None, 1)].ask("flops %d" % n))
        a = times[((model, "attend", None, 1), n)]
        aw, ac = statistics.median(x[0] for x in a), statistics.median(x[1] for x in a)
        for blas in (("openblas",) if th == 2 else BLAS_DIRS):
            t = times[((model, "torch", blas, th), n)]
            nu = times[((model, "numpy", blas, th), n)]
            tw, tc = statistics.median(x[0] for x in t), statistics.median(x[1] for x in t)
            nw, nc = statistics.median(x[0] for x in nu), statistics.median(x[1] for x in nu)
            print("forward n=%d threads=%d attend_us=%.1f torch_us=%.1f numpy_us=%.1f blas=%s "
                  "ratio=%.2f attend_cpu_us=%.1f torch_cpu_us=%.1f numpy_cpu_us=%.1f cpu_ratio=%.2f "
                  "attend_min_us=%.1f torch_min_us=%.1f numpy_min_us=%.1f numpy_ratio=%.2f "
                  "attend_threads=1 pct_peak=%.1f"
                  % (n, th, aw, tw, nw, blas, tw / aw, ac, tc, nc, tc / ac,
                     min(x[0] for x in a), min(x[0] for x in t), min(x[0] for x in nu), nw / aw,
                     100.0 * flops / (ac * 1e-6) / (peak * 1e9)))
    sys.stdout.flush()
    for p in peers.values():
        p.close()


def run_train(argv, env):
    out = subprocess.run(argv, env=env, stdout=subprocess.PIPE, text=True, check=True).stdout.split()
    return float(out[0]), float(out[1])


def train_bench():
    cfg = "data/configs/decoder.json"
    steps = os.environ.get("TRAIN_STEPS", "300")
    tsteps = os.environ.get("TORCH_TRAIN_STEPS", "100")
    runs = {}
    for th, blas in ((1, "openblas"), (2, "openblas"), (1, "reference")):
        if blas == "openblas":
            runs[("attend", th)] = ([BUILD + "/tools/trainbench", cfg, steps, str(th)], peer_env(None, th))
        runs[("torch", th, blas)] = ([PY, "bench/train_torch.py", tsteps, str(th), cfg], peer_env(blas, th))
    res = {k: [] for k in runs}
    keys = list(runs)
    for r in range(int(os.environ.get("TRAIN_ROUNDS", "5"))):
        for k in keys[r % len(keys):] + keys[:r % len(keys)]:
            res[k].append(run_train(*runs[k]))
    for th, blas in ((1, "openblas"), (2, "openblas"), (1, "reference")):
        a, t = res[("attend", th)], res[("torch", th, blas)]
        aw, ac = statistics.median(x[0] for x in a), statistics.median(x[1] for x in a)
        tw, tc = statistics.median(x[0] for x in t), statistics.median(x[1] for x in t)
        extra = ""
        if th == 2:
            one = statistics.median(x[0] for x in res[("attend", 1)])
            extra = " attend_speedup_vs_1_thread=%.2f" % (aw / one)
        print("train threads=%d attend_tok_s=%.0f torch_tok_s=%.0f ratio=%.2f blas=%s "
              "attend_cpu_tok_s=%.0f torch_cpu_tok_s=%.0f cpu_ratio=%.2f attend_best_tok_s=%.0f "
              "torch_best_tok_s=%.0f%s"
              % (th, aw, tw, aw / tw, blas, ac, tc, ac / tc, max(x[0] for x in a),
                 max(x[0] for x in t), extra))
        sys.stdout.flush()


if __name__ == "__main__":
    only = os.environ.get("BENCH_ONLY", "")
    if only in ("", "forward"):
        forward_bench()
    if only in ("", "train"):
        train_bench()
