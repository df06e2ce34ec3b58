#!/usr/bin/env bash
# The generate widget's numbers equal `attend dump`'s at every step: a course of generate
# pages, one per step (greedy, and sampling at a temperature from a seed on another layer
# and head), each exported as JSON (`attend export --lesson ... --format json`: the widget's
# own numbers beside its run), checked against `attend dump --sentence` of the page's text
# (tokens, tensors, cache rows, the new query's weights, the candidates' probabilities, the
# work so far) and against the step before (the cache keeps its rows and adds one); its
# text is what `attend generate` writes with the same options. Prints "N passed, N failed".
. "$(dirname "$0")/cli_lib.bash"
PY=/usr/bin/python3
CHECK=tests/ref/generate_check.py
if [ ! -x "$PY" ]; then
    echo "SKIP: /usr/bin/python3 is missing"
    echo "0 passed, 0 failed"
    exit 0
fi

# course NAME PROMPT START_EXTRA: a lesson "NAME" with a generate page per step 0..31 (the
# pages past the end of the text fail to export, which ends the walk)
course() {
    local name=$1 prompt=$2 extra=$3
    mkdir -p "$tmp/$name"
    {
        printf '{"id": "%s", "title": "g", "pages": [\n' "$name"
        for s in $(seq 0 31); do
            printf ' {"title": "s%d", "prose": "x", "widget": {"kind": "generate", ' "$s"
            printf '"sentence": "%s", "start": {"step": %d%s}}}%s\n' "$prompt" "$s" "$extra" \
                "$([ "$s" -lt 31 ] && echo ,)"
        done
        printf ']}\n'
    } >"$tmp/$name/01-$name.json"
}

walk() { # name prompt start-extra generate-options...
    local name=$1 prompt=$2 extra=$3
    shift 3
    course "$name" "$prompt" "$extra"
    local steps=0 prev="" out
    for s in $(seq 0 31); do
        local w="$tmp/$name-w$s.json" d="$tmp/$name-d$s.json"
        if ! "$A" export --lessons "$tmp/$name" --lesson "$name" --page $((s + 1)) \
                --format json -o "$w" 2>"$tmp/err"; then
            grep -q "past the end" "$tmp/err" && break
            bad "$name step $s: export failed: $(cat "$tmp/err")"
            return
        fi
        local text
        text=$("$PY" -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["generate"]["tokens"]))' "$w")
        # the lessons' default model is the word-level decoder (the subcommands' is wordnet)
        if ! "$A" dump --model decoder.json --sentence "$text" --format json >"$d" 2>"$tmp/err"; then
            bad "$name step $s: dump failed: $(cat "$tmp/err")"
            return
        fi
        if out=$("$PY" "$CHECK" step "$w" "$d" data/vocab.txt $prev 2>&1); then ok
        else bad "$name step $s: the widget differs from dump"; echo "$out" | head -8; fi
        if [ "$s" -gt 0 ]; then
            "$A" generate --model data/decoder.json --prompt "$prompt" --max-tokens "$s" "$@" \
                >"$tmp/cli" 2>/dev/null
            if out=$("$PY" "$CHECK" cli "$w" "$tmp/cli" 2>&1); then ok
            else bad "$name step $s: not attend generate's text"; echo "$out" | head -3; fi
        fi
        prev=$w
        steps=$((steps + 1))
    done
    [ "$steps" -ge 4 ] && ok || bad "$name: only $steps steps ran"
}

walk greedy "a bird" ""
walk sample "the teacher" ', "temperature": 0.7, "seed": 5, "layer": 1, "head": 2' \
    --temperature 0.7 --seed 5
walk hot "it" ', "temperature": 2, "seed": 9' --temperature 2 --seed 9

# the shipped page exports the same way, and x's figure for it is a heatmap of the text
expect 0 '"generate":' -- "$A" export --lesson kv-cache --page 2 --format json
expect 0 "<svg" -- "$A" export --lesson kv-cache --page 2
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
