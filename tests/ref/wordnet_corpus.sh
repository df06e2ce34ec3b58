#!/usr/bin/env bash
# wordnet_corpus.sh - the corpus tool rebuilds the committed vocabulary and docs/data.md's
# counts, and model_report writes docs/model-report.md exactly (tests/ref/wordnet_corpus.py).
# suite: slow (about 10 s: the corpus from wordnet-base and a held-out loss per shipped model)
cd "$(dirname "$0")/../.." || exit 1
exec /usr/bin/python3 tests/ref/wordnet_corpus.py
