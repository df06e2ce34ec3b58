#!/usr/bin/python3
"""compare.py - attend against PyTorch and numpy, like with like (bench/run.sh calls it).

Forward: the shipped decoder (data/decoder.json) at 6, 16 and 32 tokens, and the same
architecture with max_len 512 (seeded random weights, written by bench_engine widen) at 512
tokens. Every peer runs the same weights on the same ids (their logits are checked against
attend's first), one process each, kept alive: attend (build/tools/bench_engine serve), torch
and numpy against OpenBLAS, and torch and numpy against the reference BLAS (LD_LIBRARY_PATH
picks the libblas.so.3 each loads; the line says which it actually mapped); PyTorch both
eager and TorchScript (see peer_forward.py: inference_mode, buffers reused). One thread for
every peer (attend's forward is one thread; two-thread peers on this shared two-core machine
measured the other engineers' load). Each peer is warmed up, then timed in interleaved rounds
(every round runs every peer once per size, in a rotated order) for about 30 ms a turn; wall
and process CPU time and minor page faults per forward; medians compared with medians. The
peak that pct_peak divides by is measured (bench_engine peak), not computed from a clock.

Training: build/tools/trainbench against bench/train_torch.py on data/configs/decoder.json at
one thread (OpenBLAS and reference BLAS), and attend at two threads against itself at one;
interleaved rounds; tokens/s from wall and from CPU time, medians.

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


def openblas_core():
    """The fastest OpenBLAS kernel this CPU runs. Debian's OpenBLAS 0.3.21 does not know newer
    CPUs (a Sapphire Rapids Xeon is taken for a "Prescott", SSE3: 2.6x slower at 64 tokens of
    GPT-2 than its AVX-512 kernels), so its choice is named here from the CPU's flags: a
    flattering peer would be a wrong one."""
    try:
        flags = next(l for l in open("/proc/cpuinfo") if l.startswith("flags")).split()
    except (OSError, StopIteration):
        return None
    if "avx512_bf16" in flags:
        return "Cooperlake"
    if "avx512f" in flags and "avx512bw" in flags:
        return "SkylakeX"
    if "avx2" in flags and "fma" in flags:
        return "Haswell"
    return None


def peer_env(blas, threads):
    """The environment of a peer: its BLAS, its thread count, and no OpenBLAS overrides of this
    machine's (OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE may be set and pick a slower kernel); on
    OpenBLAS the kernel for this CPU (openblas_core)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "LD_LIBRARY_PATH")}
    if blas:
        env["LD_LIBRARY_PATH"] = BLAS_DIRS[blas]
    if blas == "openblas" and openblas_core():
        env["OPENBLAS_CORETYPE"] = openblas_core()
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


def measured_peak(attend):
    """One core's peak GFLOP/s, measured by bench_engine (FMA throughput at the vector width
    attend's matrix products use on this CPU), and that width's name; the AVX2 figure too."""
    g, isa, g2 = attend.ask("peak 1").split()
    return float(g), isa, float(g2)


def load():
    """The load average now, for the end of a line: a wall figure means little without it."""
    return "load %s" % " ".join(open("/proc/loadavg").read().split()[:3])


def median(xs, i):
    return statistics.median(x[i] for x in xs)


def forward_bench():
    models = {"shipped": "data/decoder.json", "long": os.path.join(BUILD, "bench", "decoder-512.json")}
    os.makedirs(os.path.dirname(models["long"]), exist_ok=True)
    subprocess.run([BUILD + "/tools/bench_engine", "widen", models["shipped"], models["long"], "512"],
                   check=True)
    cases = [("shipped", 6), ("shipped", 16), ("shipped", 32), ("long", 512)]
    peers = {}
    for model in models:
        peers[(model, "attend", None)] = Peer("attend", [BUILD + "/tools/bench_engine", "serve",
                                                         models[model]], peer_env(None, 1))
        for blas in BLAS_DIRS:
            for kind in ("torch", "torchscript", "numpy"):
                if kind == "torchscript" and blas != "openblas":
                    continue
                peers[(model, kind, blas)] = Peer("%s/%s" % (kind, blas),
                                                  [PY, "bench/peer_forward.py", kind, models[model], "1"],
                                                  peer_env(blas, 1))
    peak, isa, peak_avx2 = measured_peak(peers[("shipped", "attend", None)])
    print("# one core's peak, measured (bench_engine peak: 16 chains of %s FMAs, best of 5): "
          "%.1f GFLOP/s; attend's matrix products use %s here (AVX2 FMA: %.1f GFLOP/s)"
          % (isa, peak, isa, peak_avx2))
    for key, p in peers.items():
        if key[1] != "attend" and key[0] == "shipped":
            print("# %s: %s" % (p.name, p.ask("blas")))
    # the same logits: the last row's sum and argmax at every size
    for model, n in cases:
        ref = peers[(model, "attend", None)].ask("check %d" % n).split()
        for key, p in peers.items():
            if key[0] == model and key[1] != "attend":
                got = p.ask("check %d" % n).split()
                if got[1] != ref[1] or abs(float(got[0]) - float(ref[0])) > 1e-3 * (1 + abs(float(ref[0]))):
                    print("# WARNING: %s at %d tokens computes %s, attend %s" % (p.name, n, got, ref))
    # warm-up (TorchScript traces each length here) and calibration: about 30 ms a turn
    iters = {}
    for key, p in peers.items():
        for model, n in cases:
            if key[0] == model:
                p.ask("run %d 3" % n)
                us = float(p.ask("run %d 3" % n).split()[0])
                iters[(key, n)] = max(1, min(20000, int(30000 / max(us, 1.0))))
    times = {k: [] for k in iters}
    order = sorted(iters, key=str)
    for r in range(ROUNDS):
        rot = order[r % len(order):] + order[:r % len(order)]
        for key, n in rot:
            times[(key, n)].append([float(x) for x in peers[key].ask("run %d %d" % (n, iters[(key, n)])).split()])
    print("# medians over %d interleaved rounds, one thread each; ratio_X = X's median / attend's "
          "median (wall), cpu_ratio_X the same on process CPU time; faults = minor page faults "
          "per forward; torch = eager (inference_mode, buffers reused), torchscript = jit.trace + "
          "freeze (inference_mode); pct_peak = flops / attend's median CPU time / the measured peak; "
          "attend_wall_over_cpu > 1.2: the one-thread process waited for a core (the machine's load), "
          "so the wall ratios measure the load too: read cpu_ratio_X"
          % ROUNDS)
    for model, n in cases:
        flops = float(peers[(model, "attend", None)].ask("flops %d" % n))
        a = times[((model, "attend", None), n)]
        aw, ac = median(a, 0), median(a, 1)
        for blas in BLAS_DIRS:
            line = "forward n=%d threads=1 blas=%s attend_us=%.1f" % (n, blas, aw)
            cpu = " attend_cpu_us=%.1f" % ac
            ratios, cratios = "", ""
            faults = " attend_faults=%.1f" % median(a, 2)
            for kind in ("torch", "torchscript", "numpy"):
                t = times.get(((model, kind, blas), n))
                if not t:
                    continue
                tw, tc = median(t, 0), median(t, 1)
                line += " %s_us=%.1f" % (kind, tw)
                cpu += " %s_cpu_us=%.1f" % (kind, tc)
                ratios += " ratio_%s=%.2f" % (kind, tw / aw)
                cratios += " cpu_ratio_%s=%.2f" % (kind, tc / ac)
                faults += " %s_faults=%.1f" % (kind, median(t, 2))
            print(line + ratios + cpu + cratios + faults +
                  " pct_peak=%.1f attend_wall_over_cpu=%.2f (%s)" % (100.0 * flops / (ac * 1e-6) / (peak * 1e9),
                                                                    aw / ac, load()))
    sys.stdout.flush()
    for p in peers.values():
        p.close()


def run_train(argv, env):
    out = subprocess.run(argv, env=env, stdout=subprocess.PIPE, text=True, check=True).stdout.split()
    return float(out[0]), float(out[1])


def train_bench():
    """attend against PyTorch at one thread (OpenBLAS and the reference BLAS), and attend's own
    two threads against its one. No PyTorch line at two threads: on this shared two-core
    machine OpenBLAS's spinning threads measure the other processes, not PyTorch."""
    cfg = "data/configs/decoder.json"
    steps = os.environ.get("TRAIN_STEPS", "300")
    tsteps = os.environ.get("TORCH_TRAIN_STEPS", "100")
    runs = {}
    for th in (1, 2):
        runs[("attend", th)] = ([BUILD + "/tools/trainbench", cfg, steps, str(th)], peer_env(None, th))
    for blas in BLAS_DIRS:
        runs[("torch", blas)] = ([PY, "bench/train_torch.py", tsteps, "1", cfg], peer_env(blas, 1))
    res = {k: [] for k in runs}
    keys = list(runs)
    rounds = int(os.environ.get("TRAIN_ROUNDS", "5"))
    for r in range(rounds):
        for k in keys[r % len(keys):] + keys[:r % len(keys)]:
            res[k].append(run_train(*runs[k]))
    print("# medians over %d interleaved rounds: tokens/s of wall time (ratio) and of CPU time "
          "(cpu_ratio); ratio = attend / torch" % rounds)
    a = res[("attend", 1)]
    aw, ac = median(a, 0), median(a, 1)
    for blas in BLAS_DIRS:
        t = res[("torch", blas)]
        tw, tc = median(t, 0), median(t, 1)
        print("train threads=1 blas=%s attend_tok_s=%.0f torch_tok_s=%.0f ratio=%.2f "
              "attend_cpu_tok_s=%.0f torch_cpu_tok_s=%.0f cpu_ratio=%.2f (%s)"
              % (blas, aw, tw, aw / tw, ac, tc, ac / tc, load()))
    two = median(res[("attend", 2)], 0)
    print("train threads=2 attend_tok_s=%.0f attend_speedup_vs_1_thread=%.2f (attend's 2 threads over its "
          "own 1, wall; no torch here; the second core is shared with whatever else runs: %s)"
          % (two, two / aw, load()))
    sys.stdout.flush()


if __name__ == "__main__":
    only = os.environ.get("BENCH_ONLY", "")
    if only in ("", "forward"):
        forward_bench()
    if only in ("", "train"):
        train_bench()
