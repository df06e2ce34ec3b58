#!/usr/bin/env bash
# parity.sh - the player and plain mode on one Session (tools/parity.c): every page of the
# course walked in both front ends with the same keys (every key each page offers, a typed
# sentence, a swap; a lab page's last check; t on a short train run, tests/fixtures/parity-
# train), the Session's state and Change identical after each, and no offered key answered
# with "does nothing"; progress that is not saved, said by both (tests/fixtures/page-issues).
# The labs' last checks are made here
# first (one passing, one failing, one never checked), in a state directory of the test's own.
# Then plain mode given its own copy of a key (parity --teeth: m answered twice) must fail it.
# Prints "N passed, N failed".
cd "$(dirname "$0")/../.." || exit 1
P="${BUILD:-build}/tools/parity"
A=${ATTEND:-./attend}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" HOME="$tmp/home"
mkdir -p "$HOME"
pass=0 fail=0
"$A" lab check softmax data/labs/solutions/softmax.py --no-torch >/dev/null 2>&1
"$A" lab check attention tests/labs/wrong/attention-no-scale.py --no-torch >/dev/null 2>&1
if [ -s "$XDG_STATE_HOME/attend/lab-softmax.show" ] && [ -s "$XDG_STATE_HOME/attend/lab-attention.show" ]
then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL - the labs' checks left no show files"; fi
# a replay page (the induction lesson's kind) on a model trained here by a four-step recipe;
# it lists the controls a corpus run takes, which a replay page must not offer (m, h, l)
mkdir -p "$tmp/replay"
cat >"$tmp/cfg.json" <<'EOF'
{
  "config": {"name": "tiny-induction", "arch": "decoder", "d_model": 16, "n_heads": 2, "d_head": 8,
             "n_layers": 2, "max_len": 48, "pe": "learned", "norm": "layernorm",
             "norm_placement": "pre", "ffn": "none", "scale_embed": false, "final_norm": true,
             "tie_embed": false},
  "vocab": "data/induction-vocab.txt",
  "repeat": {"min_segment": 6, "max_segment": 20, "loss": "copies", "history_every": 2},
  "train": {"steps": 4, "batch": 2, "seq_len": 48, "lr": 0.001, "warmup": 1, "min_lr_ratio": 1.0,
            "weight_decay": 0.01, "clip": 1.0, "causal": true, "threads": 1, "seed": 1}
}
EOF
cat >"$tmp/replay/01-replay.json" <<'EOF'
{
  "id": "replay",
  "title": "A replay page on a model trained four steps",
  "pages": [
    {
      "title": "Replay",
      "prose": "{{x steps}} steps recorded.",
      "widget": {"kind": "train", "model": "./ind.json",
                 "controls": ["mask", "head", "layer", "reset"]}
    }
  ]
}
EOF
"$A" train --config "$tmp/cfg.json" --out "$tmp/replay/ind.json" >/dev/null 2>&1 ||
    { fail=$((fail + 1)); echo "FAIL - the four-step induction model did not train"; }
# the course, a course of short train runs (t trained to the end in both, then m, r, t), the
# replay page (t: a fresh model by its recipe, to the end in both)
for course in lessons tests/fixtures/parity-train "$tmp/replay"; do
    out=$("$P" "$course")
    echo "$out"
    last=$(grep -oE '^[0-9]+ passed, [0-9]+ failed' <<<"$out" | tail -n 1)
    p=${last%% passed*} f=${last#*passed, }
    pass=$((pass + ${p:-0})) fail=$((fail + ${f%% failed*}))
    [ -n "$last" ] || fail=$((fail + 1))
done
# parity --long's walk (the course's own runs, tests/e2e/test_parity_long.sh in make
# test-long) on the short runs: t once a page, the two runs' weights compared bit for bit
out=$("$P" --long tests/fixtures/parity-train 2>/dev/null)
last=$(grep -oE '^[0-9]+ passed, [0-9]+ failed' <<<"$out" | tail -n 1)
p=${last%% passed*} f=${last#*passed, }
pass=$((pass + ${p:-0})) fail=$((fail + ${f%% failed*}))
[ -n "$last" ] || { fail=$((fail + 1)); echo "FAIL - parity --long printed no count"; }
grep -q "^FAIL" <<<"$out" && echo "$out"
# what went wrong opening a page is data (Change.issues), said by both front ends: progress
# that cannot be saved (its lock is a directory), in a state directory of its own
mkdir -p "$tmp/nosave/attend/progress.json.lock"
out=$(XDG_STATE_HOME="$tmp/nosave" PARITY_PROGRESS=1 "$P" tests/fixtures/page-issues)
echo "$out"
last=$(grep -oE '^[0-9]+ passed, [0-9]+ failed' <<<"$out" | tail -n 1)
p=${last%% passed*} f=${last#*passed, }
pass=$((pass + ${p:-0})) fail=$((fail + ${f%% failed*}))
if grep -qE ', [1-9][0-9]* opened with an issue both said$' <<<"$out"; then pass=$((pass + 1))
else fail=$((fail + 1)); echo "FAIL - no page of tests/fixtures/page-issues opened with an issue"; fi
teeth=$("$P" --teeth lessons)
tf=$(grep -oE '^[0-9]+ passed, [0-9]+ failed' <<<"$teeth" | tail -n 1)
tf=${tf#*passed, }
tf=${tf%% failed*}
if [ "${tf:-0}" -gt 0 ] && grep -q "key m" <<<"$teeth"; then pass=$((pass + 1))
else fail=$((fail + 1)); echo "FAIL - plain mode's own copy of m was not caught (--teeth: ${tf:-no} failures)"; fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
