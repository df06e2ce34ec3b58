#!/usr/bin/env bash
# The bad-input table (issue 11): command lines, model files, vocabularies, training configs
# and lessons that must each be refused with a given exit status (2 usage, 1 runtime; never a
# crash or a signal) and a message holding the given key words (every word of KEYS, split at
# '|', searched in stdout+stderr). Progress files and quiz answers have their table in
# tests/unit/test_bad_inputs.c (they need no process). Prints "N passed, N failed".
. "$(dirname "$0")/cli_lib.bash"

PY=/usr/bin/python3
S="the cat sat on the mat"

# t STATUS KEYS -- command...: one row of the table.
t() {
    local want=$1 keys=$2; shift 3
    local out rc k
    out=$("$@" 2>&1); rc=$?
    local cmd="$*"
    [ ${#cmd} -gt 200 ] && cmd="${cmd:0:200}..."
    if [ "$rc" -ne "$want" ]; then bad "exit $rc (want $want): $cmd"; echo "$out" | head -5 | cut -c1-300; return; fi
    IFS='|' read -r -a ks <<<"$keys"
    for k in "${ks[@]}"; do
        if [ -n "$k" ] && ! grep -qF -- "$k" <<<"$out"; then
            bad "no '$k' in the output of: $cmd"; echo "$out" | head -5 | cut -c1-300; return
        fi
    done
    if grep -qE 'AddressSanitizer|runtime error:|LeakSanitizer' <<<"$out"; then
        bad "sanitizer report: $cmd"; echo "$out" | head -20; return
    fi
    ok
}

# ---- fixtures: a tiny valid model (number arrays, easy to break), vocabularies, configs ----
cat >"$tmp/cfg.json" <<'EOF'
{"config": {"arch": "decoder", "d_model": 4, "n_heads": 2, "d_head": 2, "n_layers": 1, "d_ff": 4,
 "max_len": 8, "pe": "learned", "norm": "layernorm", "norm_placement": "pre", "ffn": "gelu"}}
EOF
printf '<pad>\n<unk>\n<bos>\nthe\ncat\nsat\non\nmat\n' >"$tmp/vocab.txt"
"$A" init-model --config "$tmp/cfg.json" --vocab "$tmp/vocab.txt" --out "$tmp/tiny.json" --arrays \
    || { echo "fixture: init-model failed"; echo "0 passed, 1 failed"; exit 1; }
M=$tmp/tiny.json
# mut NAME SED: a copy of the tiny model with one sed edit
mut() { sed -e "$2" "$M" >"$tmp/m-$1.json"; echo "$tmp/m-$1.json"; }
# pymut NAME CODE: a copy edited by Python (d is the parsed model)
pymut() {
    $PY -c 'import json,sys; d=json.load(open(sys.argv[1])); exec(sys.argv[3]); json.dump(d, open(sys.argv[2], "w"))' \
        "$M" "$tmp/m-$1.json" "$2"
    echo "$tmp/m-$1.json"
}
dump() { "$A" dump --sentence "the cat sat" --model "$@"; }
mkfifo "$tmp/fifo"
mkdir "$tmp/adir"
printf 'hunter2-secret-password\n' >"$tmp/secret.txt"

# ---- command line: what is wrong with which argument ----
t 2 "--lesson needs a value" -- "$A" --lesson
t 2 "--lessons needs a value" -- "$A" --lessons
t 2 "--lesson needs a value" -- "$A" --ascii --lesson
t 2 "--model needs a value" -- "$A" --lesson causal-mask --model
t 2 "--page needs a whole number from 1 to 100000, not \"0\"" -- "$A" --page 0
t 2 "--page needs a whole number from 1 to 100000, not \"2x\"" -- "$A" present --page 2x
t 2 "unknown option \"--pgae\"" -- "$A" --pgae 3
t 2 "unknown subcommand|frobnicate" -- "$A" frobnicate
t 2 "usage: attend dump" -- "$A" dump
t 2 "unknown option|--frob" -- "$A" dump --sentence "$S" --frob
t 2 "--sentence needs a value" -- "$A" dump --sentence
t 2 "--model needs a value" -- "$A" dump --sentence "$S" --model
t 1 "--mask must be|upper" -- "$A" dump --sentence "$S" --mask upper
t 1 "--pe must be|fourier" -- "$A" dump --sentence "$S" --pe fourier
t 2 "--format is text or json|yaml" -- "$A" dump --sentence "$S" --format yaml
t 2 "--layer needs a whole number|x" -- "$A" dump --sentence "$S" --layer x
t 2 "--head needs a whole number|-1" -- "$A" dump --sentence "$S" --head -1
t 1 "--layer 7|layers 0..1" -- "$A" dump --sentence "$S" --layer 7
t 1 "--order must list" -- "$A" dump --sentence "$S" --order 0,1
t 1 "--order must list" -- "$A" dump --sentence "$S" --order a,b,c,d,e,f
t 1 "no tokens" -- "$A" dump --sentence "   "
t 1 "at most" -- "$A" dump --sentence "$(printf 'the cat %.0s' $(seq 1 40))"
t 1 "--cross needs an encoder-decoder" -- "$A" dump --sentence "$S" --cross
t 1 "give --target" -- "$A" dump --model data/translate.json --sentence "the cat sat down"
t 2 "--prompt needs a value" -- "$A" generate --prompt
t 2 "unknown option|--bogus" -- "$A" generate --bogus
t 2 "--seed needs a whole number from 0 to 2147483647" -- "$A" generate --prompt "the cat" --seed -1
t 2 "--seed needs a whole number from 0 to 2147483647" -- "$A" generate --prompt "the cat" --seed 99999999999999999999
t 2 "--max-tokens" -- "$A" generate --prompt "the cat" --max-tokens 0
t 2 "--top-k" -- "$A" generate --prompt "the cat" --top-k abc
t 2 "--temperature" -- "$A" generate --prompt "the cat" --temperature nan
t 2 "--config and --out are required" -- "$A" train --config data/configs/decoder.json
t 2 "--steps needs a whole number" -- "$A" train --config x --out y --steps 0
t 2 "--seed needs a whole number from 0 to 2147483647" -- "$A" train --config x --out y --seed 4294967296
t 2 "--threads needs a whole number from 1 to 2" -- "$A" train --config x --out y --threads 3
t 2 "unknown option" -- "$A" train --config x --out y --turbo
t 1 "--out /nonexistent/dir/x.json|No such file or directory" -- "$A" train --config data/configs/decoder.json --out /nonexistent/dir/x.json
t 1 "--out $tmp/adir|is a directory" -- "$A" train --config data/configs/decoder.json --out "$tmp/adir"
t 2 "missing --vocab FILE, --out FILE" -- "$A" init-model --config "$tmp/cfg.json"
t 2 "missing --config FILE" -- "$A" init-model --vocab "$tmp/vocab.txt" --out "$tmp/o.json"
t 2 "missing --out FILE" -- "$A" init-model --config "$tmp/cfg.json" --vocab "$tmp/vocab.txt"
t 2 "--config needs a value" -- "$A" init-model --config
t 2 "unknown option|--bogus" -- "$A" init-model --bogus
t 2 "--seed needs a whole number|-1" -- "$A" init-model --config "$tmp/cfg.json" --vocab "$tmp/vocab.txt" --out "$tmp/o.json" --seed -1
t 2 "--seed needs a whole number|18446744073709551616" -- "$A" init-model --config "$tmp/cfg.json" --vocab "$tmp/vocab.txt" --out "$tmp/o.json" --seed 18446744073709551616
t 1 "--out /nonexistent/d/o.json" -- "$A" init-model --config "$tmp/cfg.json" --vocab "$tmp/vocab.txt" --out /nonexistent/d/o.json
t 2 "--seed needs a whole number|99999999999999999999" -- "$A" quiz --answers --seed 99999999999999999999
t 2 "--seed needs a whole number|-3" -- "$A" quiz --answers --seed -3
t 2 "--answers needs --seed" -- "$A" quiz --answers
t 2 "--count needs a whole number from 1 to 1000" -- "$A" quiz --answers --seed 1 --count 0
t 2 "--lesson needs a value" -- "$A" quiz --lesson
t 2 "unknown option" -- "$A" quiz --frob
t 2 "unexpected argument" -- "$A" check-lessons a b

# ---- files that are not regular files, missing, or foreign: named, never read or echoed ----
t 1 "/dev/zero|character device|regular file" -- dump /dev/zero
t 1 "$tmp/fifo|FIFO|regular file" -- dump "$tmp/fifo"
t 1 "$tmp/adir|a directory|regular file" -- dump "$tmp/adir"
t 1 "$tmp/adir|a directory" -- "$A" generate --prompt "the cat" --model "$tmp/adir"
t 1 "$tmp/fifo|FIFO" -- "$A" generate --prompt "the cat" --model "$tmp/fifo"
/usr/bin/python3 -c 'import json, sys; c = json.load(open("data/configs/decoder.json")); c["corpus"] = sys.argv[1]; c["vocab"] = sys.argv[2]; c["eval"] = ""; json.dump(c, open(sys.argv[3], "w"))' \
    "$tmp/fifo" "$PWD/data/vocab.txt" "$tmp/fifo-cfg.json"
t 1 "$tmp/fifo|FIFO|regular file" -- timeout 20 "$A" train --config "$tmp/fifo-cfg.json" --out "$tmp/o.json" --steps 1
t 1 "No such file" -- dump "$tmp/none.json"
t 1 "secret.txt:1:1|JSON syntax error" -- dump "$tmp/secret.txt"
out=$("$A" dump --sentence "the cat" --model "$tmp/secret.txt" 2>&1)
if grep -q hunter2 <<<"$out"; then bad "a message echoed a file's contents: $out"; else ok; fi
t 1 "/dev/zero|character device" -- "$A" init-model --config /dev/zero --vocab "$tmp/vocab.txt" --out "$tmp/o.json"
t 1 "$tmp/fifo|FIFO" -- "$A" init-model --config "$tmp/cfg.json" --vocab "$tmp/fifo" --out "$tmp/o.json"
t 1 "$tmp/adir|a directory" -- "$A" train --config "$tmp/adir" --out "$tmp/o.json"
t 1 "$tmp/fifo|cannot open the lessons directory" -- "$A" check-lessons "$tmp/fifo"

# ---- model files ----
t 1 "JSON syntax error|unexpected end" -- dump "$(mut trunc '20,$d')"
t 1 "unknown top-level key|extra" -- dump "$(pymut top 'd["extra"]=1')"
t 1 "not \"attend-model\"" -- dump "$(pymut fmt 'd["format"]="gguf"')"
t 1 "version" -- dump "$(pymut ver 'd["version"]=2')"
t 1 "config.d_model" -- dump "$(pymut dm 'd["config"]["d_model"]=0')"
t 1 "config.n_heads" -- dump "$(pymut nh 'd["config"]["n_heads"]=1e300')"
t 1 "config.max_len|whole number" -- dump "$(pymut ml 'd["config"]["max_len"]=2.5')"
t 1 "config.n_layers" -- dump "$(pymut nl 'd["config"]["n_layers"]=-1e19')"
t 1 "config.arch|transformer" -- dump "$(pymut arch 'd["config"]["arch"]="transformer"')"
t 1 "config.pe" -- dump "$(pymut pe 'd["config"]["pe"]=3')"
t 1 "config.norm_eps" -- dump "$(pymut eps 'd["config"]["norm_eps"]=1e300')"
t 1 "config.rope_base" -- dump "$(pymut rb 'd["config"]["rope_base"]=1e300')"
t 1 "unknown key \"config.colour\"" -- dump "$(pymut ck 'd["config"]["colour"]="red"')"
t 1 "GB|limit" -- dump "$(pymut huge 'd["config"].update(vocab_size=1000000, d_model=4096, n_heads=64, d_head=64, d_ff=16384, n_layers=48, max_len=4096)')"
t 1 "vocab|8 words|9" -- dump "$(pymut vs 'd["config"]["vocab_size"]=9')"
t 1 "vocabulary word 4 \"c at\" contains a space" -- dump "$(pymut vsp 'd["vocab"][4]="c at"')"
t 1 "whitespace" -- dump "$(pymut vtab 'd["vocab"][4]="c\tat"')"
t 1 "repeated" -- dump "$(pymut vrep 'd["vocab"][4]="the"')"
t 1 "empty" -- dump "$(pymut vemp 'd["vocab"][4]=""')"
t 1 "<pad>" -- dump "$(pymut vpad 'd["vocab"][0]="pad"')"
t 1 "is not a string" -- dump "$(pymut vnum 'd["vocab"][3]=7')"
t 1 "missing weight|lm_head" -- dump "$(pymut nolm 'del d["weights"]["lm_head"]')"
t 1 "unexpected weight|bogus" -- dump "$(pymut xw 'd["weights"]["bogus"]=[1]')"
t 1 "tok_embed|rows" -- dump "$(pymut rows 'd["weights"]["tok_embed"]=d["weights"]["tok_embed"][:3]')"
t 1 "tok_embed|values" -- dump "$(pymut cols 'd["weights"]["tok_embed"][0]=[1,2]')"
t 1 "tok_embed|not a number" -- dump "$(pymut nan 'd["weights"]["tok_embed"][0][0]="x"')"
INF0=$(pymut inf0 'd["weights"]["tok_embed"][0][0]="XINFX"')
t 1 "tok_embed|finite" -- dump "$(sed 's/"XINFX"/1e999/' "$INF0" >"$tmp/m-inf.json"; echo "$tmp/m-inf.json")"
t 1 "finite" -- dump "$(pymut f32big 'd["weights"]["tok_embed"][0][0]=1e39')"
t 1 "shape" -- dump "$(pymut sh 'd["weights"]["tok_embed"]={"shape":[1e300,-1e300],"f32":"AAAA"}')"
t 1 "not base64" -- dump "$(pymut b64 'd["weights"]["tok_embed"]={"shape":[8,4],"f32":"***"}')"
t 1 "whole number of float32" -- dump "$(pymut b64r 'd["weights"]["tok_embed"]={"shape":[8,4],"f32":"AAAAA"}')"
t 1 "unknown key|rows" -- dump "$(pymut b64k 'd["weights"]["tok_embed"]={"shape":[8,4],"f32":"","rows":1}')"
t 1 "training" -- dump "$(pymut tr 'd["training"]=[1]')"
t 1 "top level must be an object" -- dump "$(pymut arr 'd=[1,2]')"
# Finite but huge weights overflow the forward: an error naming the tensor, never 0.000 rows,
# never "<bos> <bos> ...", and JSON output never holds a bare NaN.
BIG=$(pymut big 'd["weights"]={k:[[3e38 for x in r] for r in v] if v and isinstance(v[0], list) else [3e38 for x in v] for k,v in d["weights"].items()}')
t 1 "overflowed|x_pe[0][0] is +infinity" -- "$A" dump --sentence "the cat sat" --model "$BIG"
t 1 "overflowed" -- "$A" dump --sentence "the cat sat" --model "$BIG" --format json
t 1 "overflowed" -- "$A" generate --prompt "the cat" --model "$BIG"
out=$("$A" dump --sentence "the cat sat" --model "$BIG" --format json 2>/dev/null)
if grep -qE '(^|[^"a-zA-Z])(nan|NaN|inf)([^"a-zA-Z]|$)' <<<"$out"; then bad "bare NaN in JSON output"; else ok; fi
# A long sentence on a model with room for it: refused before allocating a huge trace. (48
# layers: at 4000 tokens each one's mask alone takes 61 MiB; the heads' n×n maps are in the
# trace's bounded map cache, so a thinner model's 4000 tokens fit and run.)
printf '{"config": {"arch": "decoder", "d_model": 4, "n_heads": 1, "d_head": 2, "n_layers": 48, "d_ff": 4, "max_len": 4096, "pe": "learned", "norm": "layernorm", "norm_placement": "pre", "ffn": "gelu"}}' >"$tmp/c-long.json"
"$A" init-model --config "$tmp/c-long.json" --vocab "$tmp/vocab.txt" --out "$tmp/m-long.json" >/dev/null \
    || { echo "fixture: init-model (48 layers) failed"; echo "0 passed, 1 failed"; exit 1; }
LONG=$tmp/m-long.json
t 1 "trace|MiB|shorter sentence" -- "$A" dump --model "$LONG" --sentence "$(printf 'the cat %.0s' $(seq 1 2000))"
t 1 "m-long.json|trace|MiB" -- "$A" generate --model "$LONG" --prompt "the cat"

# ---- vocabularies and training configs ----
printf '<pad>\n<unk>\nthe cat\n' >"$tmp/v-space.txt"
t 1 "v-space.txt|contains a space" -- "$A" init-model --config "$tmp/cfg.json" --vocab "$tmp/v-space.txt" --out "$tmp/o.json"
printf '<pad>\n<unk>\n%0300d\n' 0 >"$tmp/v-long.txt"
t 1 "v-long.txt:3|line too long" -- "$A" init-model --config "$tmp/cfg.json" --vocab "$tmp/v-long.txt" --out "$tmp/o.json"
printf '<pad>\n<unk>\na\0b\n' >"$tmp/v-nul.txt"
t 1 "v-nul.txt:3|NUL" -- "$A" init-model --config "$tmp/cfg.json" --vocab "$tmp/v-nul.txt" --out "$tmp/o.json"
printf 'the\ncat\n' >"$tmp/v-nopad.txt"
t 1 "<pad>" -- "$A" init-model --config "$tmp/cfg.json" --vocab "$tmp/v-nopad.txt" --out "$tmp/o.json"
printf '{"config": {"arch": "decoder", "d_model": 4096, "n_heads": 64, "n_layers": 48, "d_ff": 16384, "max_len": 4096, "pe": "learned", "norm": "layernorm", "norm_placement": "pre", "ffn": "gelu"}}' >"$tmp/c-huge.json"
t 1 "c-huge.json|GB|limit" -- "$A" init-model --config "$tmp/c-huge.json" --vocab "$tmp/vocab.txt" --out "$tmp/o.json"
cat >"$tmp/t-huge.json" <<EOF
{"config": {"arch": "decoder", "d_model": 4096, "n_heads": 64, "n_layers": 48, "d_ff": 16384,
 "max_len": 4096, "pe": "learned", "norm": "layernorm", "norm_placement": "pre", "ffn": "gelu"},
 "vocab": "$tmp/vocab.txt", "corpus": "$tmp/vocab.txt"}
EOF
t 1 "t-huge.json|GB|limit" -- "$A" train --config "$tmp/t-huge.json" --out "$tmp/o.json"
printf '{"config": {}, "vocab": "v", "corpus": "c", "train": {"steps": 1e300}}' >"$tmp/t-bad.json"
t 1 "t-bad.json" -- "$A" train --config "$tmp/t-bad.json" --out "$tmp/o.json"
printf '{"vocab": "v", "corpus": "c", "colour": 1}' >"$tmp/t-key.json"
t 1 "unknown key \"colour\"" -- "$A" train --config "$tmp/t-key.json" --out "$tmp/o.json"
printf '[1]' >"$tmp/t-arr.json"
t 1 "top level must be an object" -- "$A" train --config "$tmp/t-arr.json" --out "$tmp/o.json"

# ---- a file-size limit: a message, the old file intact, no temp file left, attend alive ----
"$A" init-model --config "$tmp/cfg.json" --vocab "$tmp/vocab.txt" --out "$tmp/keep.json"
before=$(md5sum <"$tmp/keep.json")
t 1 "keep.json: write error: File too large|unchanged" -- bash -c "ulimit -f 1; exec \"$A\" init-model --config \"$tmp/cfg.json\" --vocab \"$tmp/vocab.txt\" --out \"$tmp/keep.json\""
if [ "$(md5sum <"$tmp/keep.json")" = "$before" ]; then ok; else bad "the old model changed after a failed save"; fi
if ls "$tmp" | grep -q 'keep.json.tmp'; then bad "a temp file was left: $(ls "$tmp")"; else ok; fi
# a stale temp file of a dead process is removed by the next save; a symlink planted at the
# old predictable temp name is not written through
sleep 0 & dead=$!; wait $dead
touch "$tmp/keep.json.tmp-$dead-0123456789abcdef" "$tmp/keep.json.tmp.$dead"
echo precious >"$tmp/victim"
bash -c "ln -s \"$tmp/victim\" \"$tmp/keep.json.tmp.\$\$\"; exec \"$A\" init-model --config \"$tmp/cfg.json\" --vocab \"$tmp/vocab.txt\" --out \"$tmp/keep.json\""
if [ "$(cat "$tmp/victim")" = precious ]; then ok; else bad "model_save wrote through a planted link"; fi
if ls "$tmp" | grep -q "keep.json.tmp.*$dead"; then bad "stale temp files kept: $(ls "$tmp")"; else ok; fi

# ---- lessons: each problem named as file:line:col ----
# les NAME JSON: a course directory holding one lesson file; prints the directory
les() { mkdir -p "$tmp/l-$1"; printf '%s\n' "$2" >"$tmp/l-$1/01-x.json"; echo "$tmp/l-$1"; }
P='"title": "P", "prose": "x"'
t 1 "01-x.json:1:|JSON syntax error" -- "$A" check-lessons "$(les syntax '{"id": "x", "title": "T" "pages": []}')"
t 1 "01-x.json|JSON syntax error" -- "$A" check-lessons "$(les empty '')"
t 1 "01-x.json|missing key \"title\"" -- "$A" check-lessons "$(les notitle '{"id": "x", "pages": []}')"
t 1 "01-x.json|id" -- "$A" check-lessons "$(les badid '{"id": "x y!", "title": "T", "pages": []}')"
t 1 "unknown key \"colour\"" -- "$A" check-lessons "$(les key '{"id": "x", "title": "T", "colour": 1, "pages": []}')"
t 1 "unknown widget kind \"heatmapp\"" -- "$A" check-lessons "$(les kind "{\"id\": \"x\", \"title\": \"T\", \"pages\": [{$P, \"widget\": {\"kind\": \"heatmapp\", \"sentence\": \"the cat\"}}]}")"
t 1 "unknown control \"wobble\"" -- "$A" check-lessons "$(les ctl "{\"id\": \"x\", \"title\": \"T\", \"pages\": [{$P, \"widget\": {\"kind\": \"heatmap\", \"sentence\": \"the cat\", \"controls\": [\"wobble\"]}}]}")"
t 1 "01-x.json:1:|start.layer|out of range" -- "$A" check-lessons "$(les layer "{\"id\": \"x\", \"title\": \"T\", \"pages\": [{$P, \"widget\": {\"kind\": \"heatmap\", \"sentence\": \"the cat\", \"start\": {\"layer\": 1e300}}}]}")"
t 1 "start.head" -- "$A" check-lessons "$(les head "{\"id\": \"x\", \"title\": \"T\", \"pages\": [{$P, \"widget\": {\"kind\": \"heatmap\", \"sentence\": \"the cat\", \"start\": {\"head\": -1e19}}}]}")"
t 1 "not in the vocabulary|zorblax" -- "$A" check-lessons "$(les word "{\"id\": \"x\", \"title\": \"T\", \"pages\": [{$P, \"widget\": {\"kind\": \"heatmap\", \"sentence\": \"the zorblax\"}}]}")"
t 1 "start.order[0]|token position" -- "$A" check-lessons "$(les order2 "{\"id\": \"x\", \"title\": \"T\", \"pages\": [{$P, \"widget\": {\"kind\": \"chips\", \"sentence\": \"the cat\", \"start\": {\"order\": [1e300, 0]}}}]}")"
t 1 "start.order|permutation" -- "$A" check-lessons "$(les order "{\"id\": \"x\", \"title\": \"T\", \"pages\": [{$P, \"widget\": {\"kind\": \"chips\", \"sentence\": \"the cat\", \"start\": {\"order\": [0, 0]}}}]}")"
t 1 "01-x.json:1:|widget.steps|only train widgets take" -- "$A" check-lessons "$(les steps1 "{\"id\": \"x\", \"title\": \"T\", \"pages\": [{$P, \"widget\": {\"kind\": \"heatmap\", \"sentence\": \"the cat\", \"steps\": 5}}]}")"
t 1 "widget.steps|whole number of steps from 1 to 100000" -- "$A" check-lessons "$(les steps2 "{\"id\": \"x\", \"title\": \"T\", \"pages\": [{$P, \"widget\": {\"kind\": \"train\", \"steps\": 1e300}}]}")"
t 1 "unknown placeholder|wieght" -- "$A" check-lessons "$(les ph "{\"id\": \"x\", \"title\": \"T\", \"pages\": [{\"title\": \"P\", \"prose\": \"{{wieght 1 1}}\", \"widget\": {\"kind\": \"heatmap\", \"sentence\": \"the cat\"}}]}")"
t 1 "unknown question kind \"essay\"" -- "$A" check-lessons "$(les q "{\"id\": \"x\", \"title\": \"T\", \"pages\": [{$P, \"questions\": [{\"id\": \"q\", \"kind\": \"essay\", \"prompt\": \"?\"}]}]}")"
t 1 "no lesson in this course has id" -- "$A" check-lessons "$(les req '{"id": "x", "title": "T", "requires": ["nope"], "pages": []}')"
t 1 "widget.model|/dev/zero|outside the course" -- "$A" check-lessons "$(les mzero "{\"id\": \"x\", \"title\": \"T\", \"pages\": [{$P, \"widget\": {\"kind\": \"heatmap\", \"sentence\": \"the cat\", \"model\": \"/dev/zero\"}}]}")"
t 1 "widget.model|fifo|outside the course" -- "$A" check-lessons "$(les mfifo "{\"id\": \"x\", \"title\": \"T\", \"pages\": [{$P, \"widget\": {\"kind\": \"heatmap\", \"sentence\": \"the cat\", \"model\": \"$tmp/fifo\"}}]}")"
out=$("$A" check-lessons "$(les msecret "{\"id\": \"x\", \"title\": \"T\", \"pages\": [{$P, \"widget\": {\"kind\": \"heatmap\", \"sentence\": \"the cat\", \"model\": \"$tmp/secret.txt\"}}]}")" 2>&1)
if grep -q hunter2 <<<"$out"; then bad "check-lessons echoed a file's contents: $out"; else ok; fi
printf '\xff\xfe{\x00' >"$tmp/l-bin.json"; mkdir -p "$tmp/l-bin"; mv "$tmp/l-bin.json" "$tmp/l-bin/01-x.json"
t 1 "01-x.json:1:1|JSON syntax error" -- "$A" check-lessons "$tmp/l-bin"
t 1 "$tmp/none|cannot open the lessons directory" -- "$A" check-lessons "$tmp/none"

# ---- issue 23: duplicate keys, words no sentence can become, demo pages, size, escapes ----
t 1 'key "config.d_model" appears twice' -- dump "$(mut dupkey 's/"config": {/"config": {"d_model": 4, /')"
sed 's/"config": {/"config": {"n_layers": 1, /' "$tmp/cfg.json" >"$tmp/cfg-dup.json"
t 1 'cfg-dup.json: key "config.n_layers" appears twice' -- "$A" init-model --config "$tmp/cfg-dup.json" --vocab "$tmp/vocab.txt" --out "$tmp/o.json"
printf '<pad>\n<unk>\nthe\nZebra\n' >"$tmp/v-cap.txt"
t 1 'vocabulary word 3 "Zebra" has a capital letter|could never be produced' -- "$A" init-model --config "$tmp/cfg.json" --vocab "$tmp/v-cap.txt" --out "$tmp/o.json"
printf '<pad>\n<unk>\nthe\na.b\n' >"$tmp/v-dot.txt"
t 1 'vocabulary word 3 "a.b" contains "."|could never be produced' -- "$A" init-model --config "$tmp/cfg.json" --vocab "$tmp/v-dot.txt" --out "$tmp/o.json"
t 1 'vocabulary word 5 "Cat" has a capital letter' -- dump "$(pymut vcap 'd["vocab"][5]="Cat"')"
[ ! -e "$tmp/o.json" ] && ok || bad "a refused init-model wrote --out"
LID=$(sed -n 's/^ *"id": *"\([^"]*\)".*/\1/p' "$(ls lessons/*.json | head -n 1)" | head -n 1)
printf '{"title": "t", "steps": [{"open": "%s", "page": 0}]}\n' "$LID" >"$tmp/demo0.json"
t 1 'demo0.json:1:|step 1: "page" is 0, must be between 1|numbered from 1' -- "$A" demo --check "$tmp/demo0.json"
out=$("$A" demo --check "$tmp/demo0.json" 2>&1)
grep -q '^"' <<<"$out" && bad "demo --check garbles its message: $out" || ok
# issue 39: a step that quits the presenter; a key twice (file:line:col); a FIFO or a
# directory as the script names itself, not "demos//x.json.json"
printf '{"title": "t", "steps": [{"open": "%s", "page": 1},\n {"keys": "q"}]}\n' "$LID" >"$tmp/demo-q.json"
t 1 'demo-q.json:2:2: step 2: key "q" would end the lecture' -- "$A" demo --check "$tmp/demo-q.json"
t 1 'demo-q.json:2:2: step 2: key "q" would end the lecture' -- "$A" present --plan "$tmp/demo-q.json" --check
printf '{"title": "t",\n "steps": [{"open": "%s", "page": 1, "page": 2}]}\n' "$LID" >"$tmp/demo-dup.json"
t 1 'demo-dup.json:2:|key "page" appears twice' -- "$A" demo --check "$tmp/demo-dup.json"
t 1 'demo-dup.json:2:|key "page" appears twice' -- "$A" present --plan "$tmp/demo-dup.json" --check
mkfifo "$tmp/plan.fifo"; mkdir "$tmp/plan.dir"
t 1 "$tmp/plan.fifo: is a FIFO" -- timeout 20 "$A" demo --check "$tmp/plan.fifo"
t 1 "$tmp/plan.dir: is a directory" -- "$A" present --plan "$tmp/plan.dir" --check
out=$("$A" demo "$tmp/plan.dir" 2>&1)
grep -q 'demos/' <<<"$out" && bad "a directory as the demo: $out" || ok
printf '%s\n' '{"config": {"arch": "decoder", "d_model": 4, "n_heads": 2, "d_head": 2, "n_layers": 1, "d_ff": 4,' \
    ' "max_len": 2048, "pe": "learned", "norm": "layernorm", "norm_placement": "pre", "ffn": "gelu"}}' >"$tmp/cfg-long.json"
"$A" init-model --config "$tmp/cfg-long.json" --vocab "$tmp/vocab.txt" --out "$tmp/long.json" >/dev/null
long=$(for i in $(seq 320); do printf 'the cat sat '; done)
printf 'old\n' >"$tmp/fig.svg"
t 1 "over attend's limit of 64 MiB|960 tokens|fig.svg not written" -- "$A" export --model "$tmp/long.json" --sentence "$long" -o "$tmp/fig.svg"
t 1 "over attend's limit of 64 MiB" -- "$A" export --model "$tmp/long.json" --sentence "$long" --what heads
[ "$(cat "$tmp/fig.svg")" = old ] && ok || bad "a refused export changed its -o file"
# a lesson's escape sequences (OSC title, CSI colours, the C1 CSI) never reach the terminal
mkdir -p "$tmp/l-esc"
$PY -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["title"] = "Evil \x1b]0;pwned\x07 title"
d["pages"][0]["prose"] = "Hello \x1b[31mred\x1b[0m and \u009b2J"
for p in d["pages"]:
    for q in p.get("questions", []):
        q["prompt"] = "Why \x1b[2J " + q.get("prompt", "")
json.dump(d, open(sys.argv[2], "w"))' "$(ls lessons/*.json | head -n 1)" "$tmp/l-esc/01-esc.json"
raw() { # DESC -- command: its stdout and stderr hold no ESC byte and no C1 CSI
    local desc=$1; shift 2
    local out
    out=$("$@" 2>&1)
    if LC_ALL=C grep -q $'\x1b\|\xc2\x9b' <<<"$out"; then bad "$desc: a raw escape sequence in the output"
    elif ! grep -qF '^[' <<<"$out"; then bad "$desc: the escape is not shown as ^["; echo "$out" | head -3
    else ok; fi
}
raw "check-lessons --show" -- "$A" check-lessons --show "$tmp/l-esc"
raw "quiz --answers" -- "$A" quiz --answers --seed 1 --lessons "$tmp/l-esc"
# a word-level model notes unknown words on stderr (the WordPiece default has none: its byte
# tokens cover every byte)
raw "dump's note on stderr" -- "$A" dump --model decoder.json --sentence $'the \x1b]0;pwned\x07 cat'
raw "a model path in a message" -- "$A" dump --sentence "the cat" --model $'/no/such/\x1b[2Jfile'

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
