#!/usr/bin/env bash
# Training throughput (called by bench/run.sh): attend's trainer on the decoder config
# (data/configs/decoder.json: batch 16 x 32 tokens) with 1 and 2 threads, and the same model
# in PyTorch on the CPU with the same shapes, batch and optimiser, and the ratio.
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
T=$BUILD/tools/trainbench
STEPS=${TRAIN_BENCH_STEPS:-300}
echo "== training (decoder config, $STEPS steps)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
declare -A rate
for th in 1 2; do
    line=$("$T" --config data/configs/decoder.json --out "$tmp/m.json" --steps "$STEPS" --threads "$th" 2>&1 | tail -n 1)
    rate[$th]=$(echo "$line" | sed -nE 's/.*\(([0-9]+) tok\/s\).*/\1/p')
    echo "  attend $th thread(s): ${rate[$th]:-?} tok/s"
done
if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
    for th in 1 2; do
        tl=$(/usr/bin/python3 bench/train_torch.py 100 "$th")
        echo "  $tl"
        tr=$(echo "$tl" | sed -nE 's/.*: ([0-9]+) tok\/s/\1/p')
        c=${rate[$th]:-}
        [ -n "$c" ] && [ -n "$tr" ] && awk -v c="$c" -v t="$tr" -v th="$th" \
            'BEGIN { printf "  ratio, %d thread(s): attend is %.2fx %s than torch\n", th, (c>t? c/t : t/c), (c>t? "faster":"slower") }'
    done
else
    echo "  torch: not installed (apt-get install python3-torch) - no comparison"
fi
