#!/usr/bin/env bash
# make bench: speed and memory of attend (measurements, not pass/fail tests).
#   1. attend's forward and trainer against PyTorch (eager and TorchScript) and numpy, like with
#      like (bench/compare.py: the same model, sizes, one thread, warm-up; wall and CPU time and
#      page faults from interleaved rounds, medians), against OpenBLAS and the reference BLAS,
#      and the share of one core's measured peak; one line per figure:
#        forward n=6 threads=1 blas=openblas attend_us=… torch_us=… torchscript_us=… …
#        train threads=1 blas=openblas attend_tok_s=… torch_tok_s=… ratio=…
#   2. attention's growth with n: one head and the whole forward at 128..2048 tokens (seeded
#      random weights of the shipped decoder's shape); 3. the whole `attend dump` process;
#   4. a GPT-2-small-shaped Hugging Face model against PyTorch eager and TorchScript, and the
#      time to its first heatmap, by dump and in the player (bench/hf_gpt2.py, bench/player_line.py); 5. the TUI's redraws (bench/tui_bench.sh), on the
#      decoder's pages and the wordnet tokens page.
# Setup: installs Debian's libopenblas0-pthread when it is missing (as root, with apt-get),
# leaving the system's libblas.so.3 choice as it was (the peers pick theirs by LD_LIBRARY_PATH).
# BENCH_ONLY=forward|train|hf|dump|tui limits the run; BENCH_ROUNDS, TRAIN_ROUNDS: see compare.py.
# Builds what it runs (attend and the bench tools, with make); a part that cannot run (a
# build failure, a missing peer, a tool that fails) is named at the end and the exit status
# is 1: a benchmark that did not measure never passes for one that did.
# The output is also written, with the date, commit, CPU and the load average at the start
# and the end, to $BUILD/bench/RESULTS.md; BENCH_SAVE=1 writes it to bench/RESULTS.md (the
# committed figures are always a run's output, never typed).
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
B=$BUILD/tools/bench_engine
ONLY=${BENCH_ONLY:-}
if [ -z "${BENCH_INNER:-}" ]; then
    mkdir -p "$BUILD/bench"
    log=$BUILD/bench/run.log
    load0=$(cut -d' ' -f1-3 /proc/loadavg)
    start=$(date -u '+%Y-%m-%d %H:%M UTC')
    rev=$(git rev-parse --short HEAD 2>/dev/null || echo "?") # what the run builds: at the start
    [ -n "$(git status --porcelain -- src tools bench ':!bench/RESULTS.md' 2>/dev/null)" ] && rev="$rev + uncommitted changes"
    BENCH_INNER=1 bash "$0" "$@" 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
    load1=$(cut -d' ' -f1-3 /proc/loadavg)
    cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)
    {
        echo "# Benchmark results"
        echo
        echo "Written by \`bench/run.sh\` (\`make bench\`) from its own output: not edited by hand."
        echo "See bench/README.md for what each field means and how the peers are written."
        echo
        echo "- run: $start, commit $rev, BENCH_ONLY=${ONLY:-(all parts)}, exit status $rc"
        echo "- machine: $cpu, $(nproc) cores, shared with other users"
        echo "- load average (1, 5, 15 min): **$load0 at the start, $load1 at the end**"
        echo "  (on a loaded machine read the cpu_* fields and the ratios, which are measured in the same run)"
        echo
        echo '```'
        cat "$log"
        echo '```'
    } >"$BUILD/bench/RESULTS.md"
    [ "${BENCH_SAVE:-}" = 1 ] && cp "$BUILD/bench/RESULTS.md" bench/RESULTS.md
    echo "make bench: results in $BUILD/bench/RESULTS.md$([ "${BENCH_SAVE:-}" = 1 ] && echo " and bench/RESULTS.md")"
    exit "$rc"
fi
load() { echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"; }
failed=()
part_failed() { failed+=("$1"); echo "  (could not run: $1)"; }
if ! make -s -j2 BUILD="$BUILD" attend "$B" "$BUILD/tools/trainbench" "$BUILD/tools/progress_bench" >/dev/null; then
    echo "make bench: could not build attend and the bench tools (make -j2 attend $B)"
    exit 1
fi
OB=/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3
if [ ! -e "$OB" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    alt=libblas.so.3-x86_64-linux-gnu
    before=$(update-alternatives --query "$alt" 2>/dev/null | sed -n 's/^Value: //p')
    lbefore=$(update-alternatives --query liblapack.so.3-x86_64-linux-gnu 2>/dev/null | sed -n 's/^Value: //p')
    echo "== setup: installing libopenblas0-pthread (Debian's OpenBLAS)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libopenblas0-pthread >/dev/null 2>&1 ||
        { apt-get update -qq >/dev/null 2>&1 &&
          DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libopenblas0-pthread >/dev/null 2>&1; }
    [ -n "$before" ] && update-alternatives --set "$alt" "$before" >/dev/null 2>&1
    [ -n "$lbefore" ] && update-alternatives --set liblapack.so.3-x86_64-linux-gnu "$lbefore" >/dev/null 2>&1
fi
if [ "$ONLY" = "" ] || [ "$ONLY" = forward ] || [ "$ONLY" = train ]; then
    echo "== attend against PyTorch and numpy (forward: µs per forward; train: tokens/s)"
    load
    if [ ! -e "$OB" ]; then
        echo "# OpenBLAS is not installed (apt-get install libopenblas0-pthread): the blas=openblas lines use what libblas.so.3 is"
    fi
    if /usr/bin/python3 -c 'import torch, numpy' 2>/dev/null; then
        BUILD=$BUILD /usr/bin/python3 bench/compare.py || part_failed "bench/compare.py"
    else
        echo "  torch or numpy not installed (apt-get install python3-torch python3-numpy): no comparison"
        part_failed "the PyTorch and numpy peers"
    fi
fi
if [ "$ONLY" = "" ] || [ "$ONLY" = forward ]; then
    echo "== attention's growth with n (one head, CPU µs; growth per doubling, N² gives 4.00)"
    load
    long=$(mktemp --suffix=.json)
    { "$B" widen data/decoder.json "$long" 2048 && "$B" attention "$long"; } ||
        part_failed "attention's growth ($B)"
    rm -f "$long"
fi
if [ "$ONLY" = "" ] || [ "$ONLY" = hf ]; then
    echo "== real-model shapes (bench/hf_gpt2.py): GPT-2 small at 12-1024 tokens and Qwen3-0.6B (BF16) at 12 and 64 against PyTorch, the memory floor, peak RSS, first heatmaps by dump and in the player (tmux), Qwen3-4B (BF16)"
    load
    if /usr/bin/python3 -c 'import torch, numpy, regex' 2>/dev/null; then
        { BUILD=$BUILD /usr/bin/python3 bench/hf_gpt2.py 2>&1; echo "rc=$?" >"$BUILD/bench-hf.rc"; } |
            grep -v -e TracerWarning -e '_create_method_from_trace'
        [ "$(cat "$BUILD/bench-hf.rc" 2>/dev/null)" = "rc=0" ] || part_failed "bench/hf_gpt2.py"
    else
        echo "  torch, numpy or regex not installed (apt-get install python3-torch python3-numpy python3-regex)"
        part_failed "the Hugging Face model's peers"
    fi
fi
if [ "$ONLY" = "" ] || [ "$ONLY" = dump ]; then
    echo "== attend dump, whole process (target < 10 ms, < 10 MB): the default (wordnet) and the lessons' decoder"
    load
    printf '  wordnet: '; "$B" exec 31 -- ./attend dump --sentence "the cat sat on the mat" ||
        part_failed "attend dump"
    printf '  decoder: '; "$B" exec 31 -- ./attend dump --model decoder.json --sentence "the cat sat on the mat" ||
        part_failed "attend dump --model decoder.json"
    printf '  wordnet json: '; "$B" exec 15 -- ./attend dump --sentence "the cat sat on the mat" --format json ||
        part_failed "attend dump --format json"
    printf '  decoder json: '; "$B" exec 15 -- ./attend dump --model decoder.json --sentence "the cat sat on the mat" --format json ||
        part_failed "attend dump --model decoder.json --format json"
fi
if [ "$ONLY" = "" ] || [ "$ONLY" = tui ]; then
    for extra in bench/*_bench.sh; do
        [ -f "$extra" ] || continue
        bash "$extra" || part_failed "$extra"
    done
fi
if [ ${#failed[@]} -gt 0 ]; then
    echo "make bench: ${#failed[@]} part(s) could not run: ${failed[*]}"
    exit 1
fi
exit 0
