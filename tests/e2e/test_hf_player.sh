#!/usr/bin/env bash
# test_hf_player.sh - attend --model DIR in the player, on small random Hugging Face models
# written by tests/ref/hf_models.py: at 80x24 it opens on lesson 20's river-bank page, whose
# small multiples label every head with what it does on the sentence and whose prose names the
# head that links bank to river; the passport names the files' weights with their shapes; the
# parameter page's total is the number of values in the files; the next-token page shows the
# top probabilities. Every number is checked against `attend dump
# --format json` of the same model (tests/e2e/hf_player_screen.py). Also: NO_COLOR=1 LANG=C,
# 200x60, plain mode, a LLaMA-family model, a sentence longer than the model's context (the message names
# the limit), a directory that is no model (exit 1, terminal restored), lesson 20 without a
# model (how to get one) and its parameter tables whole at 80x24.
. "$(dirname "$0")/harness.bash"
PY=/usr/bin/python3
if ! "$PY" tests/ref/py_has.py torch numpy regex 2>/dev/null; then
    echo "test_hf_player: needs python3-torch, python3-numpy and python3-regex for $PY"
    echo "0 passed, 1 failed"
    exit 1
fi
M=$E2E_TMP/models
mkdir -p "$M"
for name in gpt2-f32 llama-gqa-untied-f32-sharded; do
    "$PY" tests/ref/hf_models.py --write "$M" "$name" || { echo "cannot write $name"; exit 1; }
done
G=$M/gpt2-f32
# the sentences of lesson 20's pages on the opened model, by widget kind
page_sentence() {
    "$PY" -c 'import json,sys
for p in json.load(open("lessons/20-real-models.json"))["pages"]:
    w = p.get("widget", {})
    if w.get("model") == "@opened" and w.get("kind") == sys.argv[1]:
        print(w["sentence"]); break' "$1"
}
BANK=$(page_sentence heatmap)
NEXT=$(page_sentence generate)
# every weight the model's files hold (not GPT-2's causal-mask buffers h.N.attn.bias), grouped
# by thousands as the table prints it
FILE_TOTAL=$("$PY" -c 'import json,struct,glob,sys,math
n = 0
for f in glob.glob(sys.argv[1] + "/*.safetensors"):
    b = open(f, "rb").read(8)
    h = json.loads(open(f, "rb").read(8 + struct.unpack("<Q", b)[0])[8:])
    n += sum(math.prod(t["shape"]) for k, t in h.items() if k != "__metadata__" and not k.endswith((".attn.bias", ".attn.masked_bias")))
print(format(n, ",").replace(",", " "))' "$G")
N_POS=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["n_positions"])' "$G/config.json")

shows() { # WHAT description [ascii]: the screen against dump's numbers
    local out
    screen >"$E2E_TMP/screen"
    if out=$("$PY" tests/e2e/hf_player_screen.py "$1" "$E2E_TMP/screen" "$ATTEND" "$G" \
        "$([ "$1" = next ] && echo "$NEXT" || echo "$BANK")" ${3:-}); then
        ok "$2 ($(echo "$out" | tr '\n' ';' | cut -c1-150))"
    else
        fail "$2"
        echo "$out"
    fi
}

walk() { # W H label [ascii] [VAR=value...]
    local w=$1 h=$2 label=$3 asc=${4:-}
    shift 4
    start "$w" "$h" "$@" ATTEND_EXPORT_DIR="$E2E_TMP/export-${label//[^a-zA-Z0-9]/_}" -- --model "$G"
    expect "the model you opened" "$label: --model opens the river-bank page on the model"
    expect "Found it?" "$label: the prose answers which head links bank to river"
    shows heads "$label: every head's label and the answer equal dump --heads / --pair" "$asc"
    keys Space
    expect "shape passport" "$label: the passport page"
    shows passport-1 "$label: step 1 names wte.weight with its shape" "$asc"
    keys n
    wait_for "step 2/" && shows passport-2 "$label: step 2 names wpe.weight" "$asc"
    keys n n
    wait_for "step 4/" && shows passport-4 "$label: step 4 names ln_1" "$asc"
    keys n
    wait_for "step 5/" && shows passport-5 "$label: step 5 (Q) names c_attn, [d, 3d]" "$asc"
    keys Space
    expect "parameters of gpt2" "$label: the parameter page counts the opened model"
    local total=$FILE_TOTAL # grouped by a thin space in UTF-8, a space in ASCII
    [ -z "$asc" ] && total=${FILE_TOTAL// /$(printf '\u2009')}
    check "$label: its total ($FILE_TOTAL) is the number of weights in the safetensors files" \
        wait_for "$total  100.0%"
    # x exports the figure as shown: titled with the opened model, not the page's load-time one
    local exp=$E2E_TMP/export-${label//[^a-zA-Z0-9]/_}
    rm -rf "$exp"; mkdir -p "$exp"
    keys x
    expect "exported" "$label: x exports the parameter page"
    check "$label: the exported figure counts the opened model (parameters of gpt2)" \
        grep -qs "parameters of gpt2" "$exp"/*.svg
    keys Space
    expect "Generate  step 0" "$label: the next-token page"
    shows next "$label: the top next-token probabilities equal dump --next" "$asc"
    keys q
    expect_exit 0 "$label: q quits"
}

walk 80 24 "80x24" ""
walk 80 24 "NO_COLOR LANG=C" ascii NO_COLOR=1 LANG=C LC_ALL=C TERM=xterm
walk 200 60 "200x60" ""

# twelve heads at 80x24 (GPT-2's): the labels shrink to "h0 prev", z shows every head
"$PY" tests/ref/hf_models.py --write "$M" gpt2-12heads-f32 || { echo "cannot write gpt2-12heads-f32"; exit 1; }
G12=$M/gpt2-12heads-f32
tags12=$("$PY" - "$ATTEND" "$G12" "$BANK" <<'PYEOF'
import json, subprocess, sys
attend, model, sentence = sys.argv[1:4]
d = json.loads(subprocess.run([attend, "dump", "--model", model, "--sentence", sentence, "--heads",
                               "--format", "json"], capture_output=True, text=True).stdout)
for h in d["heads"]:
    if h["layer"] == 1:
        best, tag = 0.4, "mixed"
        for key in ("prev", "self", "first"):
            if h[key] >= best:
                best, tag = h[key], key
        print("h%d %s" % (h["head"], tag))
PYEOF
)
start 80 24 -- --model "$G12"
expect "the model you opened" "a 12-head model opens"
expect "z shows the widget alone" "12 heads do not fit beside the prose: the screen says z"
keys z
expect "h11 " "z: all 12 heads of the layer"
miss=""
while IFS= read -r w; do screen | grep -qF -- "$w" || miss="$miss [$w]"; done <<<"$tags12"
if [ -z "$miss" ] && [ -n "$tags12" ]; then ok "every head's short label equals dump --heads"
else fail "every head's short label equals dump --heads, missing:$miss"; fi
keys q
expect_exit 0 "q quits the 12-head model"

# plain mode (screen readers, pipes) takes --model too: each head's words and the passport's
# files equal dump's
plain_out=$(printf 'q\n' | "$ATTEND" --plain --model "$G" 2>&1)
plain_want=$("$PY" - "$ATTEND" "$G" "$BANK" <<'PYEOF'
import json, subprocess, sys
attend, model, sentence = sys.argv[1:4]
d = json.loads(subprocess.run([attend, "dump", "--model", model, "--sentence", sentence, "--heads",
                               "--format", "json"], capture_output=True, text=True).stdout)
layer = min(1, d["n_layers"] - 1)
for h in d["heads"]:
    if h["layer"] == layer:
        best, what = 0.4, None
        for key, name in (("prev", "previous token"), ("self", "itself"), ("first", "first token")):
            if h[key] >= best:
                best, what = h[key], name
        print("head %d (mostly %s, %.2f):" % (h["head"], what, best) if what else "head %d (content" % h["head"])
PYEOF
)
miss=""
while IFS= read -r w; do
    case $plain_out in *"$w"*) ;; *) miss="$miss [$w]" ;; esac
done <<<"$plain_want"
if [ -z "$miss" ] && [ -n "$plain_want" ]; then ok "plain mode: each head's words equal dump --heads"
else fail "plain mode: each head's words equal dump --heads, missing:$miss"; fi
case $plain_out in *"the model you opened"*) ok "plain mode opens the river-bank page on the model" ;;
*) fail "plain mode opens the river-bank page on the model" ;; esac
plain_pp=$(printf 'next\nq\n' | "$ATTEND" --plain --model "$G" 2>&1)
case $plain_pp in *"in the files: wte.weight ["*"]."*) ok "plain mode: the passport names the files' weights" ;;
*) fail "plain mode: the passport names the files' weights" ;; esac

# a sentence longer than the model's context: the editor names the limit
start 80 24 -- --model "$G"
expect "the model you opened" "the model opens again"
keys e
expect "edit the sentence" "e opens the sentence editor"
long=$(for i in $(seq 1 $((N_POS + 5))); do printf 'river '; done)
literal "$long"
expect "> $N_POS (its context, max_len $N_POS)" "a sentence past the context: the message names max_len $N_POS"
keys Escape
keys q
expect_exit 0 "q quits after the editor"

# the LLaMA family: <s> first, grouped K/V, the passport says how RoPE pairs
start 80 24 -- --model "$M/llama-gqa-untied-f32-sharded"
expect "the model you opened" "a LLaMA-family model opens"
expect "<s>" "its BOS token <s> is the first row"
keys Space
expect "embed_tokens.weight" "its passport names model.embed_tokens.weight"
keys n n n n n
expect "rotate_half" "its RoPE step says how Hugging Face pairs the dimensions"
keys q
expect_exit 0 "q quits the LLaMA model"

# not a model: a clear message, exit 1, the terminal restored
mkdir -p "$E2E_TMP/empty"
start 80 24 -- --model "$E2E_TMP/empty"
expect_exit 1 "a directory that is no model: exit 1"
if grep -q "without config.json" "$E2E_TMP/stderr"; then ok "the message names config.json"
else fail "the message names config.json: $(cat "$E2E_TMP/stderr")"; fi

# no model: lesson 20's pages say how to get one; its parameter tables fit whole at 80x24
start 80 24 -- --lesson real-models --page 4
expect "huggingface-cli download" "without a model the river-bank page says how to get one"
expect "attend --model" "... and how to open it"
keys BSpace BSpace
expect "parameters of gpt2" "the GPT-2 parameter page"
check "its FFN formula shows whole" wait_for "L x (2 x d_model x d_ff + d_ff + d_model)"
check "its sizes line shows whole" wait_for "vocab $("$PY" -c 'import json; print(json.load(open("data/hf/gpt2/config.json"))["vocab_size"])')"
if screen | grep -q "…"; then fail "nothing on the GPT-2 page is cut"; else ok "nothing on the GPT-2 page is cut"; fi
keys q
expect_exit 0 "q quits lesson 20"
finish
