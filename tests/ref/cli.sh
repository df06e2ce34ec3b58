#!/usr/bin/env bash
# The headless `attend dump` command line: output, exit statuses (0 ok, 2 usage, 1 runtime)
# and the messages a user sees. Prints "N passed, N failed".
. "$(dirname "$0")/cli_lib.bash"

S="the cat sat on the mat"
expect 0 "| " -- "$A" dump --sentence "$S"
expect 0 "shape passport" -- "$A" dump --sentence "$S"
expect 0 "L1.h3.weights" -- "$A" dump --sentence "$S" --layer 1 --head 3
expect 2 "usage: attend dump" -- "$A" dump
expect 2 "unknown option" -- "$A" dump --sentence "$S" --frobnicate
expect 2 "needs a value" -- "$A" dump --sentence
expect 1 "--mask must be" -- "$A" dump --sentence "$S" --mask upper
expect 1 "--pe must be" -- "$A" dump --sentence "$S" --pe fourier
expect 2 "--format is text or json" -- "$A" dump --sentence "$S" --format yaml
# every subcommand's options go through one parser (src/session/opts.c): the same messages
expect 2 "--next needs a whole number from 1 to 100, not \"0\"" -- "$A" dump --sentence "$S" --next 0
expect 2 "attend heads: --format is text or json, not \"xml\"" -- "$A" heads --format xml
expect 2 "attend lab: --lang is py or c, not \"rust\"" -- "$A" lab check attention x.py --lang rust
expect 2 "attend generate: --temperature needs a number above 0" -- "$A" generate --prompt a --temperature 0
expect 2 "attend check-lessons: unexpected argument \"b\"" -- "$A" check-lessons a b
expect 2 "attend notes: unknown option \"--bogus\"" -- "$A" notes --bogus
expect 2 "attend handout: -o needs a value" -- "$A" handout -o
expect 1 "--order must list" -- "$A" dump --sentence "$S" --order 0,1,2
expect 1 "not a permutation" -- "$A" dump --sentence "$S" --order 0,0,1,2,3,4
expect 1 "this model has heads" -- "$A" dump --sentence "$S" --head 9
expect 1 "this model has layers" -- "$A" dump --sentence "$S" --layer 7
expect 1 "No such file" -- "$A" dump --sentence "$S" --model "$tmp/none.json"
printf '{"format": "attend-model",\n "version": 1,\n "config": {' >"$tmp/trunc.json"
expect 1 "trunc.json:3:" -- "$A" dump --sentence "$S" --model "$tmp/trunc.json"
expect 1 "at most" -- "$A" dump --sentence "$(printf 'the cat %.0s' $(seq 1 40))"
expect 0 "not in the vocabulary" -- "$A" dump --model decoder.json --sentence "the zebra sat"
# the default model (WordPiece) splits what it does not know: no note, no <unk>
out=$("$A" dump --sentence "the zebra sat on a zeppelin" 2>&1)
if ! grep -q "not in the vocabulary\|<unk>" <<<"$out" && grep -q "##" <<<"$out"; then ok
else bad "the default model says <unk> or splits nothing"; echo "$out" | head -4; fi
expect 1 "target" -- "$A" dump --model data/translate.json --sentence "the cat sat down"
expect 0 "translate" -- "$A" dump --model translate.json --sentence "the cat sat down" --target "le chat est assis"
expect 0 "--heads" -- "$A" dump --help
expect 0 "previous token" -- "$A" dump --model decoder.json --heads --sentence "the dog chased the cat and the cat sat on the mat"
expect 0 "cross attention" -- "$A" dump --model data/translate.json --sentence "the cat sat down" --target "le chat est assis" --cross

# Text output: the causal mask shows -- above the diagonal, and every row sums to 1.000.
out=$("$A" dump --sentence "$S" --mask causal)
rows=$(echo "$out" | sed -n '5,10p')
if [ "$(echo "$rows" | grep -c '| *1.000$')" = 6 ]; then ok; else bad "row sums not all 1.000"; echo "$rows"; fi
first=$(echo "$rows" | head -1)
if [ "$(grep -o -- '--' <<<"$first" | wc -l)" = 5 ]; then ok; else bad "first row should have 5 masked cells: $first"; fi
out=$("$A" dump --sentence "$S" --mask none)
if ! echo "$out" | sed -n '5,10p' | grep -q -- '--'; then ok; else bad "mask none still masks"; fi
# The mask is named as the lessons name it (names_mask): a decoder's default is "both".
if "$A" dump --sentence "$S" | grep -q '^controls: mask both, '; then ok; else bad "dump names causal+padding \"both\""; fi
for m in none causal padding both; do
    if "$A" dump --sentence "$S" --mask $m | grep -q "^controls: mask $m, "; then ok; else bad "dump --mask $m does not print mask $m"; fi
done

# JSON output parses and has the documented keys.
if "$A" dump --sentence "$S" --format json >"$tmp/d.json" &&
   /usr/bin/python3 -c '
import json,sys
d=json.load(open(sys.argv[1]))
assert d["tokens"]==["the","cat","sat","on","the","mat"], d["tokens"]
h=d["layers"][0]["heads"][0]
for k in ("q","k","v","scores","weights","out"): assert k in h, k
assert len(h["weights"])==6 and len(h["weights"][0])==6
assert all(abs(sum(r)-1)<1e-6 for r in h["weights"])
assert "config" in d and d["config"]["causal"] is True
' "$tmp/d.json"; then ok; else bad "json dump"; fi
# --order runs the tokens permuted.
if "$A" dump --sentence "$S" --order 1,0,2,3,4,5 --format json | /usr/bin/python3 -c '
import json,sys; d=json.load(sys.stdin); assert d["tokens"][:2]==["cat","the"], d["tokens"]'; then ok; else bad "order"; fi

# --heads --format json is JSON (not the text table), with the text's numbers: a decoder
# (causal: no "next") and --mask none (an encoder's view: "next" too).
S2="the dog chased the cat and the cat sat on the mat"
for mask in both none; do
    "$A" dump --heads --sentence "$S2" --mask $mask >"$tmp/h.txt" 2>/dev/null
    if "$A" dump --heads --sentence "$S2" --mask $mask --format json >"$tmp/h.json" 2>/dev/null &&
       /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
lines = open(sys.argv[2]).read().split("\n")
cols = lines[0].split()[2:-3]            # prev [next] self first
rows = [l.split() for l in lines[1:] if l.strip()]
assert d["mask"] == sys.argv[3] and len(d["heads"]) == len(rows) == d["n_layers"] * d["n_heads"]
for h, r in zip(d["heads"], rows):
    assert [h["layer"], h["head"]] == [int(r[0]), int(r[1])], (h, r)
    assert ("next" in h) == ("next" in cols), (h, cols)
    for i, c in enumerate(cols):
        assert abs(h[c] - float(r[2 + i])) <= 0.0005 + 1e-9, (c, h[c], r)
    assert " ".join(r[2 + len(cols):]) == h["mostly"], (r, h["mostly"])
' "$tmp/h.json" "$tmp/h.txt" $mask; then ok; else bad "dump --heads --format json (--mask $mask)"; head -3 "$tmp/h.json"; fi
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
