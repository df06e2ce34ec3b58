#!/usr/bin/env bash
# The progress file at scale (called by bench/run.sh): load, first save and a page turn (mark a
# page, save) with 1,000, 10,000 and 30,000 lesson records (issue 23 asks a save under 10 ms at
# 10,000). Wall time includes the disk's fsync of the file and its folder, which attend does
# not control; turn_cpu is attend's own work. The folder is under TMPDIR (default /tmp).
set -u
cd "$(dirname "$0")/.." || exit 1
B=${BUILD:-build}/tools/progress_bench
echo "== the progress file at scale (median; wall, and a turn's CPU)"
echo "  # one save of a 10-record file, for the disk's fsync floor:"
printf '  '; "$B" 10 21
for n in 1000 10000 30000; do
    printf '  '; "$B" "$n" 11
done
# issue 39: every part in linear time: 2,000 and 20,000 records of each (ten times the
# records should cost about ten times the time, not a hundred)
for part in lessons scores schedule labs slots; do
    for n in 2000 20000; do
        printf '  '; "$B" "$n" 5 "$part"
    done
done
