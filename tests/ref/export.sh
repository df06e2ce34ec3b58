#!/usr/bin/env bash
# `attend export`: exit statuses and messages; the numbers of the SVG and CSV equal dump's
# (every value to 9 digits, the values printed in cells to the precision shown); every SVG
# (all four figures; every lesson page in make test, the first page of each widget kind in make
# check) is valid XML (xmllint) and renders (rsvg-convert);
# a rendered heatmap's cells get lighter as the weight rises. Prints "N passed, N failed".
# Needs libxml2-utils, librsvg2-bin and /usr/bin/python3 (installed here when root).
. "$(dirname "$0")/cli_lib.bash"
PY=/usr/bin/python3
CHECK=tests/ref/export_check.py

need=()
command -v xmllint >/dev/null 2>&1 || need+=(libxml2-utils)
command -v rsvg-convert >/dev/null 2>&1 || need+=(librsvg2-bin)
[ -x "$PY" ] || need+=(python3)
if [ ${#need[@]} -gt 0 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing ${need[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" \
        >/dev/null 2>&1
fi
for tool in xmllint rsvg-convert "$PY"; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "SKIP: $tool is missing and could not be installed (apt-get install -y" \
             "libxml2-utils librsvg2-bin python3); the export checks need it"
        echo "0 passed, 0 failed"
        exit 0
    fi
done

S="the cat sat on the mat"
# ---- the command line ----
expect 2 "usage: attend export" -- "$A" export
expect 0 "--what heatmap|heads|passport|chips" -- "$A" export --help
expect 2 "unknown option" -- "$A" export --sentence "$S" --frobnicate
expect 2 "--format is one of svg, csv, json" -- "$A" export --sentence "$S" --format png
expect 1 "--what must be" -- "$A" export --sentence "$S" --what matrix
expect 2 "--lesson and --page go together" -- "$A" export --lesson causal-mask
expect 2 "--page needs a whole number from 1" -- "$A" export --lesson causal-mask --page 0
expect 2 "either --lesson ID --page N or --sentence" -- "$A" export --lesson causal-mask --page 1 --sentence "$S"
expect 1 'no lesson "nope": give its number' -- "$A" export --lesson nope --page 1
np=$(/usr/bin/python3 -c 'import json,glob; print(len(json.load(open(glob.glob("lessons/*-causal-mask.json")[0]))["pages"]))')
expect 1 "pages 1..$np, not 9" -- "$A" export --lesson causal-mask --page 9
expect 1 "has no figure" -- "$A" export --lesson watch-it-learn --page 1
expect 1 "SVG and CSV, no JSON" -- "$A" export --lesson scaling --page 1 --format json
expect 2 "use --what heads" -- "$A" export --sentence "$S" --heads
expect 1 "this model has heads" -- "$A" export --sentence "$S" --head 9
expect 1 "--mask must be" -- "$A" export --sentence "$S" --mask upper
expect 1 "No such file" -- "$A" export --sentence "$S" -o "$tmp/no/such/dir.svg"
[ ! -e "$tmp/no/such/dir.svg" ] && ok || bad "a failed export left a file"
expect 0 "" -- "$A" export --sentence "$S" -o "$tmp/stdout-vs-file.svg"
"$A" export --sentence "$S" >"$tmp/stdout.svg" 2>/dev/null
cmp -s "$tmp/stdout.svg" "$tmp/stdout-vs-file.svg" && ok || bad "-o and stdout differ"
# JSON is dump's JSON, byte for byte
"$A" export --sentence "$S" --order 1,0,2,3,4,5 --format json >"$tmp/e.json" 2>/dev/null
"$A" dump --sentence "$S" --order 1,0,2,3,4,5 --format json >"$tmp/d.json" 2>/dev/null
cmp -s "$tmp/e.json" "$tmp/d.json" && ok || bad "export --format json differs from dump's"

# ---- numbers: the SVG and CSV against dump (JSON to 9 digits, text to 3 decimals) ----
numbers() { # name kind(weights|masked|cross) layer head -- options...
    local name=$1 kind=$2 layer=$3 head=$4; shift 5
    local extra=() dumpx=()
    [ "$kind" = masked ] && extra=(--scores)
    [ "$kind" = cross ] && dumpx=(--cross)
    "$A" export "$@" --layer "$layer" --head "$head" "${extra[@]}" -o "$tmp/$name.svg" &&
    "$A" export "$@" --layer "$layer" --head "$head" "${extra[@]}" --format csv -o "$tmp/$name.csv" &&
    "$A" dump "$@" --format json >"$tmp/$name.json" &&
    "$A" dump "$@" --layer "$layer" --head "$head" "${dumpx[@]}" >"$tmp/$name.txt"
    if [ $? -ne 0 ]; then bad "$name: a command failed"; return; fi
    local out
    if out=$("$PY" "$CHECK" numbers "$tmp/$name.svg" "$tmp/$name.csv" "$tmp/$name.json" \
             "$tmp/$name.txt" "$layer" "$head" "$kind" 2>&1); then ok
    else bad "$name: numbers differ from dump"; echo "$out" | head -8; fi
}
numbers causal weights 0 0 -- --sentence "$S"
numbers rope weights 1 2 -- --sentence "$S" --mask none --pe rope
numbers order weights 1 3 -- --model decoder.json --sentence "the dog chased the cat" --order 4,3,2,1,0 --no-scale
numbers scores masked 0 1 -- --sentence "$S"
numbers cross cross 0 1 -- --model data/translate.json --sentence "the cat sat down" --target "le chat est assis" --cross

# ---- every figure is valid XML and renders ----
svg_ok() { # file: xmllint and rsvg-convert both accept it
    local err
    if ! err=$(xmllint --noout "$1" 2>&1); then bad "not valid XML: $1"; echo "$err" | head -3; return; fi
    if ! err=$(rsvg-convert "$1" -o "${1%.svg}.png" 2>&1) || [ ! -s "${1%.svg}.png" ]; then
        bad "rsvg-convert cannot render $1"; echo "$err" | head -3; return
    fi
    ok
}
for w in heatmap heads passport chips; do
    "$A" export --model decoder.json --sentence "the <cat> & \"sat\"" --what "$w" \
        -o "$tmp/fig-$w.svg" 2>/dev/null
    svg_ok "$tmp/fig-$w.svg"
done
# the word-level tokenizer turns < & " into <unk>: the title and labels must escape it
grep -q '&lt;unk&gt;' "$tmp/fig-heatmap.svg" && ! grep -q '<unk>' "$tmp/fig-heatmap.svg" && ok ||
    bad "the tokens are not XML-escaped"
# the default (WordPiece) model keeps < and & as tokens of their own: escaped too
"$A" export --sentence "the <cat> & \"sat\"" -o "$tmp/fig-wp.svg" 2>/dev/null
svg_ok "$tmp/fig-wp.svg"
grep -q '>&lt;<' "$tmp/fig-wp.svg" && grep -q '>&amp;<' "$tmp/fig-wp.svg" && ok ||
    bad "WordPiece tokens < and & are not XML-escaped"
"$A" export --sentence "$S" --order 1,0,2,3,4,5 --what chips -o "$tmp/chips.svg"
grep -q 'outputs do not match' "$tmp/chips.svg" && grep -q 'max|Attn(PX)' "$tmp/chips.svg" && ok ||
    bad "chips verdict missing"
"$A" export --sentence "$S" --order 1,0,2,3,4,5 --mask none --pe none --what chips -o "$tmp/chips2.svg"
grep -q 'outputs match permutation' "$tmp/chips2.svg" && ok || bad "no PE, no mask: chips should match"
"$A" export --sentence "$S" --what heads --format csv -o "$tmp/heads.csv"
heads=$("$PY" -c 'import json;print(json.load(open("data/wordnet.json"))["config"]["n_heads"])')
[ "$(cut -d, -f2 "$tmp/heads.csv" | sed 1d | sort -u | wc -l)" = "$heads" ] && ok ||
    bad "heads CSV should have $heads heads"
"$A" export --sentence "$S" --what passport --format csv -o "$tmp/pp.csv"
grep -q '^[0-9]*,L0.h0.weights,softmax,6,6$' "$tmp/pp.csv" && ok || bad "passport CSV lacks L0.h0.weights [6x6]"

# every page of the course with a figure exports as a valid SVG (make test, ATTEND_TEST_FULL=1:
# every page, ~110 exports and a PDF of them, ~8 s of CPU; make check: the first page of each
# widget kind)
full=${ATTEND_TEST_FULL:-0}
pages=$("$PY" - "$full" <<'PYEOF'
import json, glob, sys
seen = set()
for f in sorted(glob.glob("lessons/[0-9]*.json")):
    L = json.load(open(f))
    for i, p in enumerate(L["pages"]):
        w = p.get("widget")
        kind = w.get("kind", "none") if isinstance(w, dict) else (w or "none")
        if sys.argv[1] == "1" or kind not in seen:
            print(L["id"], i + 1, kind)
        seen.add(kind)
PYEOF
)
nfig=0 nnone=0 figs=()
mkdir "$tmp/pages"
while read -r id page kind; do
    f="$tmp/pages/$id-$page.svg"
    out=$("$A" export --lesson "$id" --page "$page" -o "$f" 2>&1); rc=$?
    case $kind in
    none|train|lab)
        if [ $rc = 1 ] && grep -q "has no figure" <<<"$out"; then nnone=$((nnone + 1))
        else bad "$id page $page ($kind): want 'has no figure', got rc $rc: $out"; fi ;;
    *)
        if [ $rc != 0 ]; then bad "$id page $page ($kind): rc $rc: $out"; continue; fi
        figs+=("$f") ;;
    esac
done <<<"$pages"
# every figure through one xmllint and one rsvg-convert (a PDF page each: one start-up, not
# one per page); when either refuses, each page alone names the bad one
if [ ${#figs[@]} -gt 0 ] && xmllint --noout "${figs[@]}" 2>/dev/null &&
   rsvg-convert -f pdf -o "$tmp/pages.pdf" "${figs[@]}" 2>/dev/null && [ -s "$tmp/pages.pdf" ]; then
    nfig=${#figs[@]}
else
    for f in "${figs[@]}"; do
        if ! xmllint --noout "$f" 2>/dev/null || ! rsvg-convert "$f" >/dev/null 2>&1
        then bad "$(basename "$f" .svg | sed 's/-\([0-9]*\)$/ page \1/'): invalid SVG"; continue; fi
        nfig=$((nfig + 1))
    done
fi
if [ "$full" = 1 ]; then
    [ "$nfig" -ge 50 ] && ok || bad "only $nfig course pages exported a figure"
else
    [ "$nfig" -ge 10 ] && ok || bad "only $nfig widget kinds exported a figure"
fi
echo "course: $nfig pages exported, $nnone without a figure"
# the explanation widgets' figures: the numbers of the SVG equal the CSV's, and a recount
# here (N², the parameter formula of lesson 18's exercise); valid XML that renders
for f in "scaling 1" "cost 2" "counting-parameters 2"; do
    set -- $f
    "$A" export --lesson "$1" --page "$2" -o "$tmp/live-$1.svg" &&
        "$A" export --lesson "$1" --page "$2" --format csv -o "$tmp/live-$1.csv" &&
        xmllint --noout "$tmp/live-$1.svg" && rsvg-convert "$tmp/live-$1.svg" -o "$tmp/live-$1.png" &&
        [ -s "$tmp/live-$1.png" ] && ok || bad "$1 page $2: the figure or its CSV"
done
if "$PY" - "$tmp" <<'PYEOF'
import csv, json, re, sys
t = sys.argv[1]
pts = lambda f, cls: [(float(x), float(y)) for x, y in re.findall(
    r'data-x="([^"]+)" data-y="([^"]+)"', re.search(r'<g class="%s">(.*?)</g>' % cls,
    open(f).read(), re.S).group(1))]
# scaling: one point per d_k = 1..1024; the CSV's max weights; unscaled sharpens, scaled not
rows = list(csv.DictReader(open(t + "/live-scaling.csv")))
raw, sc = pts(t + "/live-scaling.svg", "unscaled"), pts(t + "/live-scaling.svg", "scaled")
assert [int(r["d_k"]) for r in rows] == [2 ** i for i in range(11)]
for r, (x, y), (_, z) in zip(rows, raw, sc):
    assert abs(y - float(r["max_raw"])) < 1e-6 and abs(z - float(r["max_scaled"])) < 1e-6, r
assert raw[-1][1] > 0.9 and sc[-1][1] < 0.5, (raw[-1], sc[-1])
# cost: N² at every N, in the SVG and the CSV
rows = list(csv.DictReader(open(t + "/live-cost.csv")))
for (x, y), r in zip(pts(t + "/live-cost.svg", "n2"), rows):
    assert y == x * x == int(r["score_entries"]), (x, y, r)
# params: the exercise of lesson 18 page 2 recounted from its config
L = json.load(open("lessons/18-counting-parameters.json"))
c = L["pages"][1]["widget"]["config"]
d, h, L_, F, V = c["d_model"], c["n_heads"], c["n_layers"], c["d_ff"], c["vocab"]
dh = c.get("d_head", d // h); kv = c.get("n_kv_heads", h)
want = V * d + L_ * (d * h * dh + 2 * d * kv * dh + h * dh * d + 3 * d * F + 2 * d) + d
want += 0 if c.get("tied") else d * V
svg = open(t + "/live-counting-parameters.svg").read()
counts = [int(x) for x in re.findall(r'data-count="(\d+)"', svg)]
tot = [r for r in csv.reader(open(t + "/live-counting-parameters.csv")) if r[0] == "total"][0]
assert sum(counts) == int(tot[2]) == want, (sum(counts), tot, want)
assert "{:,}".format(want) in svg
PYEOF
then ok; else bad "the explanation figures' numbers"; fi
# the page's start state: lesson 7 page 1 equals dump of the same sentence and controls
"$A" export --lesson causal-mask --page 1 --format csv -o "$tmp/lesson.csv"
w=$("$PY" -c 'import json;w=json.load(open("lessons/07-causal-mask.json"))["pages"][0]["widget"];print(w["sentence"]+"|"+w["start"].get("mask",""))')
sent=${w%|*} mask=${w#*|}
"$A" export --model decoder.json --sentence "$sent" ${mask:+--mask "$mask"} --format csv \
    -o "$tmp/same.csv"
cmp -s "$tmp/lesson.csv" "$tmp/same.csv" && ok || bad "lesson page 1 differs from export --sentence \"$sent\""

# ---- colours follow the weights: render and read the pixels ----
"$A" export --model decoder.json --sentence "the dog chased the cat" --mask none --head 1 \
    -o "$tmp/col.svg"
rsvg-convert "$tmp/col.svg" -o "$tmp/col.png"
if out=$("$PY" "$CHECK" colours "$tmp/col.svg" "$tmp/col.png" 2>&1); then ok; echo "$out"
else bad "cell colours do not follow the weights"; echo "$out" | head -8; fi
rsvg-convert "$tmp/stdout.svg" -o "$tmp/causal.png"
if out=$("$PY" "$CHECK" colours "$tmp/stdout.svg" "$tmp/causal.png" 2>&1); then ok
else bad "causal heatmap: colours or masked cells wrong"; echo "$out" | head -8; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
