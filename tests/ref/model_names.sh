#!/usr/bin/env bash
# model_names.sh - every command that takes --model (dump, export, heads, generate) reads a
# shipped model's bare name, "decoder.json" or "decoder", as that model in attend's data
# directory, from any directory; a file of that name in the current directory is used
# instead; a name that is neither is refused naming the value. Prints "N passed, N failed".
. "$(dirname "$0")/cli_lib.bash"
root=$(pwd)
A=$(cd "$(dirname "$A")" && pwd)/$(basename "$A")
cd "$tmp" || exit 1

# the output of subcommand SUB with --model M, the models' folder written as MODEL/ and the
# current directory as ./ (status kept)
run() {
    local sub=$1 m=$2 out rc
    local s=(--sentence "the cat sat" --target "le chat")
    case $sub in
    dump) out=$("$A" dump --model "$m" "${s[@]}" 2>&1) ;;
    dumpjson) out=$("$A" dump --model "$m" "${s[@]}" --format json 2>&1) ;;
    export) out=$("$A" export --model "$m" "${s[@]}" --format csv 2>&1) ;;
    heads) out=$("$A" heads --model "$m" 2>&1) ;;
    generate) out=$("$A" generate --model "$m" --prompt "the cat" --greedy --max-tokens 3 2>&1) ;;
    esac
    rc=$?
    out=${out//$root\/data\//MODEL/}
    printf '%s\nstatus %s\n' "${out//$tmp\//}" "$rc"
}

n_models=0
for f in "$root"/data/*.json; do
    name=$(basename "$f" .json)
    n_models=$((n_models + 1))
    subs="dump dumpjson export generate"
    [ "$name" = decoder ] && subs="$subs heads" # heads on every model would take seconds
    for sub in $subs; do
        want=$(run "$sub" "$f")
        for m in "$name.json" "$name"; do
            got=$(run "$sub" "$m")
            if [ "$got" = "$want" ]; then ok
            else bad "$sub --model $m differs from --model $f"; diff <(echo "$want") <(echo "$got") | head -6; fi
        done
    done
    # and dump runs every shipped model
    if run dump "$name" | grep -q "^status 0$"; then ok
    else bad "dump --model $name failed"; run dump "$name" | head -3; fi
done
[ "$n_models" -ge 2 ] && ok || bad "only $n_models shipped models found in $root/data"

# a file here of a shipped model's name wins over the shipped one
cp "$root/data/decoder.json" "$tmp/wordnet.json"
got=$(run dump wordnet.json)
want=$(run dump "$tmp/wordnet.json")
if [ "$got" = "$want" ] && grep -q "d_model 48" <<<"$got"; then ok
else bad "a wordnet.json in the current directory is not the one read"; echo "$got" | head -3; fi

# a name that is nothing: refused with the value in the message, for every command
for sub in dump export heads generate; do
    got=$(run "$sub" no-such-model)
    if grep -q "no-such-model: No such file or directory" <<<"$got" && grep -q "^status 1$" <<<"$got"
    then ok; else bad "$sub --model no-such-model"; echo "$got" | head -3; fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
