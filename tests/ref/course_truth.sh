#!/usr/bin/env bash
# The course true after every key (issue 25), driven through attend --plain: each sentence
# that was stale or false after a key is checked in the state that made it so, and the
# numbers it names are recomputed (the parameter table's formulas evaluated against its
# counts; the previous-token head a page sends the learner to hunt for exists, by attend
# dump --heads). Prints "N passed, N failed".
. "$(dirname "$0")/cli_lib.bash"
PY=/usr/bin/python3
export XDG_STATE_HOME="$tmp/state"
plain() { # INPUT LESSON PAGE: the plain transcript
    printf '%b' "$1" | "$A" --plain --lesson "$2" --page "$3" 2>&1
}
# after(): the transcript from the last announcement on (the state after the last key)
after() { awk '/^[^ ].*: .*\.$/ && !/^(row|Mask|Cell|Keys|Lesson|Widget|Heatmap|Chips|Verdict)/ {buf=""} {buf=buf $0 "\n"} END {printf "%s", buf}'; }
has()  { if grep -qF -- "$2" <<<"$3"; then ok; else bad "$1: no '$2'"; fi; }
hasnt() { if grep -qF -- "$2" <<<"$3"; then bad "$1: still says '$2'"; else ok; fi; }
page_of() { # LESSON-ID TITLE-SUBSTRING: 1-based page number
    "$PY" -c 'import json,glob,sys
for f in glob.glob("lessons/*.json"):
    d=json.load(open(f))
    if d["id"]!=sys.argv[1]: continue
    for i,p in enumerate(d["pages"]):
        if sys.argv[2] in p["title"]: print(i+1); sys.exit(0)
sys.exit(1)' "$1" "$2"
}

# L7 p1: after m the page no longer says "Press m for the causal mask"
out=$(plain 'm\nq\n' causal-mask 1)
before=${out%%mask causal on:*}
has "L7p1 start" "Press m for the causal mask" "$before"
hasnt "L7p1 after m" "Press m for the causal mask" "${out#*mask causal on:}"
has "L7p1 after m" "m takes the mask off again" "${out#*mask causal on:}"

# L9 p4: after m it does not ask to take off a mask that is off
p=$(page_of permutation-equivariance "causal mask breaks")
out=$(plain 'm\nq\n' permutation-equivariance "$p")
has "L9p4 start" "Press m to take the mask off" "${out%%mask causal off:*}"
hasnt "L9p4 after m" "Press m to take the mask off" "${out#*mask causal off:}"
hasnt "L9p4 after m" "put the causal mask on (mask: none)" "${out#*mask causal off:}"

# L15 p2: at the end of the text the prose no longer says n appends a token
p=$(page_of kv-cache "Watch it write")
out=$(plain "$(for i in $(seq 1 40); do printf 'n\\n'; done)q\n" kv-cache "$p")
has "L15p2 end" "The text is finished: n appends nothing more" "$out"
last=$(awk '/^On the page now:/{buf=""} {buf=buf $0 "\n"} END {printf "%s", buf}' <<<"$out")
hasnt "L15p2 end" "n appends the most likely token" "$last"

# L18 p3: "the 4B of the name" only while tied and with GQA
p=$(page_of counting-parameters "real Qwen3")
out=$(plain 'g\nq\n' counting-parameters "$p")
has "L18p3 start" "that is the 4B of the name" "${out%%grouped-query attention off:*}"
hasnt "L18p3 after g" "that is the 4B of the name" "${out#*grouped-query attention off:}"
has "L18p3 after g" "with GQA off" "${out#*grouped-query attention off:}"
out=$(plain 't\nq\n' counting-parameters "$p")
hasnt "L18p3 after t" "that is the 4B of the name" "${out#*embeddings untied:}"

# L18: every row's formula gives the row's count, on every parameters page and toggle
n18=$("$PY" -c 'import json,glob; [print(len(json.load(open(f))["pages"])) for f in glob.glob("lessons/*-counting-parameters.json")]')
for pg in $(seq 1 "$n18"); do
    for keys in 'q' 't\nq' 'g\nq' 't\ng\nq'; do
        plain "${keys}\n" counting-parameters "$pg" >"$tmp/params.txt"
        if "$PY" - "$tmp/params.txt" <<'PYEOF'
import re, sys
text = open(sys.argv[1]).read()
blocks = text.split("Parameters: d_model ")[1:]
bad = 0
for b in blocks:
    m = re.match(r"(\d+), (\d+) layers, (\d+) query heads and (\d+) key-value heads of width (\d+), d_ff (\d+), vocabulary (\d+)", b)
    d, L, h, kv, dh, ff, V = map(int, m.groups())
    env = {"d_model": d, "L": L, "h": h, "kv_h": kv, "d_head": dh, "d_ff": ff, "vocab": V}
    for line in b.splitlines()[1:]:
        r = re.match(r"(.+?): (\d+) \((.*)\)\.$", line)
        if not r or r.group(1) == "positions":
            continue
        f = r.group(3)
        if f.startswith("tied"):
            val = 0
        else:
            f = f.replace(" biases", "").replace("2L", "2*L").replace(" x ", " * ")
            val = eval(f, {}, env)
        if val != int(r.group(2)):
            print("formula %r = %d, row says %s" % (r.group(3), val, r.group(2)))
            bad = 1
sys.exit(bad or not blocks)
PYEOF
        then ok; else bad "L18 page $pg keys '$keys': a formula disagrees with its count"; fi
    done
done

# L11 p5: the layer the page opens on has a previous-token head (attend dump --heads)
p=$(page_of multi-head "Why several heads")
mapfile -t sl < <("$PY" -c 'import json,glob,sys
d=json.load(open(glob.glob("lessons/*-multi-head.json")[0]))["pages"][int(sys.argv[1])-1]["widget"]
print(d["sentence"]); print(d.get("start",{}).get("layer",0))' "$p")
sent=${sl[0]} layer=${sl[1]}
# (these pages name no model: the lessons' default, decoder.json, not dump's wordnet.json)
best=$("$A" dump --model decoder.json --sentence "$sent" --heads | awk -v L="$layer" '$1==L && $2 ~ /^[0-9]+$/ {if ($3>m) m=$3} END {print m+0}')
if "$PY" -c "import sys; sys.exit(0 if $best >= 0.5 else 1)"; then ok; else bad "L11p5: layer $layer's best previous-token score is $best"; fi

# the chips' verdict is the gap of the layer whose rows are shown, recomputed from attend dump
p=$(page_of permutation-equivariance "causal mask breaks")
mapfile -t cw < <("$PY" -c 'import json,glob,sys
w=json.load(open(glob.glob("lessons/*-permutation-equivariance.json")[0]))["pages"][int(sys.argv[1])-1]["widget"]
print(w["sentence"]); print(",".join(map(str,w["start"]["order"])))' "$p")
for layer_keys in ""; do # the page offers no layer key: layer 0, whose gap differs from the max
    out=$(plain "${layer_keys}q\n" permutation-equivariance "$p")
    v=$(grep -oE 'Verdict: [^;]*; layer [0-9]+: the largest gap .* over its output rows is [^ ]+\.' <<<"$out" | tail -1)
    layer=$(sed -E 's/.*; layer ([0-9]+):.*/\1/' <<<"$v")
    gap=$(sed -E 's/.* is ([^ ]+)\.$/\1/' <<<"$v")
    "$A" dump --model decoder.json --sentence "${cw[0]}" --mask causal --pe none --format json \
        >"$tmp/id.json"
    "$A" dump --model decoder.json --sentence "${cw[0]}" --mask causal --pe none \
        --order "${cw[1]}" --format json >"$tmp/perm.json"
    if "$PY" - "$tmp/id.json" "$tmp/perm.json" "$layer" "$gap" <<'PYEOF'
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
L, said = int(sys.argv[3]), float(sys.argv[4])
def gap(l):
    A, B = a["layers"][l]["L%d.attn_out" % l], b["layers"][l]["L%d.attn_out" % l]
    return max(abs(x - y) for i, o in enumerate(b["order"]) for x, y in zip(B[i], A[o]))
want = gap(L)
ok = abs(float("%.3g" % want) - said) <= 1e-9 + 1e-3 * abs(want)
print("layer %d: said %g, recomputed %.3g (max over layers %.3g)" % (L, said, want, max(gap(l) for l in range(len(a["layers"])))))
sys.exit(0 if ok else 1)
PYEOF
    then ok; else bad "chips verdict of layer $layer is not that layer's gap"; fi
done

# Q on a page with questions starts at that page's first question (L6's practice page names
# its question; every page with questions is checked)
"$PY" -c 'import json,glob,re
for f in sorted(glob.glob("lessons/*.json")):
    d=json.load(open(f))
    for i,p in enumerate(d["pages"]):
        qs=p.get("questions") or []
        if qs and qs[0].get("kind")!="drill":
            head=re.split(r"\{\{", qs[0].get("prompt",""))[0].split("\n")[0][:40]
            if len(head)>=12: print("%s\t%d\t%s" % (d["id"], i+1, head))' >"$tmp/qpages"
nq=0
while IFS=$'\t' read -r lid pg head; do
    nq=$((nq + 1))
    out=$(plain 'Q\nq\nq\n' "$lid" "$pg")
    first=$(grep -A2 -m1 '^Question 1 of' <<<"$out")
    if grep -qF -- "$head" <<<"$first"; then ok; else bad "Q on $lid page $pg does not start at its question ($head)"; fi
done <"$tmp/qpages"
[ "$nq" -gt 3 ] && ok || bad "only $nq pages with questions checked"

# Two points of the source now taught, recomputed from the page's own matrices:
# identical keys give uniform attention; the mask applied after softmax (the mistake) leaves
# rows that do not sum to one, whose weights were divided by sums over the future keys.
worked_check() { # LESSON TITLE KEYS MODE: MODE uniform|late|right
    local lid=$1 title=$2 keys=$3 mode=$4 pg
    pg=$(page_of "$lid" "$title") || { bad "$lid: no page \"$title\""; return; }
    plain "${keys}q\n" "$lid" "$pg" >"$tmp/worked.txt"
    if "$PY" - "$tmp/worked.txt" "$lid" "$pg" "$mode" <<'PYEOF'
import glob, json, math, re, sys
text, lid, pg, mode = open(sys.argv[1]).read(), sys.argv[2], int(sys.argv[3]), sys.argv[4]
for f in glob.glob("lessons/*.json"):
    d = json.load(open(f))
    if d["id"] == lid:
        w = d["pages"][pg - 1]["widget"]
Q, K = w["q"], w["k"]
dk = len(K[0])
S = [[sum(a * b for a, b in zip(q, k)) / math.sqrt(dk) for k in K] for q in Q]
rows = re.findall(r"^row (\d+), t\d+: (.*)$", text, re.M)[-len(Q):]
bad = 0
for i, rest in rows:
    i = int(i)
    e = [math.exp(x) for x in S[i]]
    if mode == "uniform":
        want = [1.0 / len(K)] * len(K)
    elif mode == "late":   # softmax over every key, then the future zeroed
        want = [e[j] / sum(e) if j <= i else 0.0 for j in range(len(K))]
    else:                  # the mask before softmax
        want = [e[j] / sum(e[: i + 1]) if j <= i else 0.0 for j in range(len(K))]
    got_sum = float(re.search(r"sum (-?[0-9]+\.[0-9]+)", rest).group(1))
    if abs(got_sum - sum(want)) > 0.006:
        print("row %d: sum %.2f, want %.2f" % (i, got_sum, sum(want))); bad = 1
    for j, wv in enumerate(want):
        if wv >= 0.05 and "t%d %.2f" % (j, wv) not in rest:
            print("row %d: no t%d %.2f in %r" % (i, j, wv, rest)); bad = 1
    if mode == "late" and i < len(K) - 1 and not sum(want) < 0.995:
        print("row %d: the mistake should leave a sum below one" % i); bad = 1
sys.exit(bad or not rows)
PYEOF
    then ok; else bad "$lid \"$title\" ($mode): the weights are not what the matrices give"; fi
}
worked_check softmax-weighted-sum "Identical keys" "" uniform
worked_check causal-mask "masking after softmax" "" late
worked_check causal-mask "masking after softmax" "m\nm\n" right
out=$(plain 'q\n' causal-mask "$(page_of causal-mask "masking after softmax")")
has "mask after softmax page" "not 1" "$out"

# "1 tokens", "1 scores": no count of one with a plural noun, wherever a key brings N to 1
one() { # NAME TRANSCRIPT
    if grep -qE '(^|[^0-9.,])1 (tokens|scores|entries|words|steps|keys|rows|columns|heads|layers)\b' <<<"$2"; then
        bad "$1: a plural after 1: $(grep -oE '(^|[^0-9.,])1 (tokens|scores|entries|words|steps|keys|rows|columns|heads|layers)\b' <<<"$2" | head -1)"
    else ok; fi
}
for pg in $(seq 1 "$("$PY" -c 'import json,glob; print(len(json.load(open(glob.glob("lessons/*-cost.json")[0]))["pages"]))')"); do
    one "cost page $pg at N = 1" "$(plain "$(for i in $(seq 1 14); do printf -- '-\\n'; done)q\n" cost "$pg")"
done
for pg in $(seq 1 "$("$PY" -c 'import json,glob; print(len(json.load(open(glob.glob("lessons/*-kv-cache.json")[0]))["pages"]))')"); do
    one "kv-cache page $pg at step 1" "$(plain "$(for i in $(seq 1 12); do printf 'N\\n'; done)q\n" kv-cache "$pg")"
done
one "a one-word sentence" "$(plain 'e cat\nq\n' cost 1)"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
