#!/usr/bin/env bash
# make bench: speed and memory of attend (measurements, not pass/fail tests).
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
B=$BUILD/tools/bench_engine
echo "== engine"
out=$("$B" forward); echo "$out"
if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
    tout=$(/usr/bin/python3 bench/torch_forward.py); echo "$tout"
    for n in 16 128 256; do
        c=$(echo "$out" | awk -v n="$n" '$1==n && $2=="tokens:" {print $3}')
        t=$(echo "$tout" | awk -v n="$n" '$2==n && $3=="tokens:" {print $4}')
        [ -n "$c" ] && [ -n "$t" ] && awk -v c="$c" -v t="$t" -v n="$n" \
            'BEGIN { printf "  ratio at %3d tokens: attend is %.1fx %s than torch\n", n, (c<t? t/c : c/t), (c<t? "faster":"slower") }'
    done
else
    echo "  torch: not installed (apt-get install python3-torch) - no comparison"
fi
echo "== attend dump, whole process (target < 10 ms, < 10 MB)"
printf '  '; "$B" exec 31 -- ./attend dump --sentence "the cat sat on the mat"
printf '  json: '; "$B" exec 15 -- ./attend dump --sentence "the cat sat on the mat" --format json
for extra in bench/*_bench.sh; do
    [ -f "$extra" ] && bash "$extra"
done
exit 0
