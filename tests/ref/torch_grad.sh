#!/bin/sh
# torch_grad.sh - the trainer against PyTorch: tools/train_ref runs 5 AdamW steps of a small
# decoder and of a small encoder-decoder (between them every choice: learned/sinusoidal PE,
# LayerNorm/RMSNorm, pre/post-norm, GELU/SwiGLU, tied/untied head, scaled embeddings) and
# tests/ref/torch_grad.py redoes them with torch autograd and torch.optim.AdamW (Debian's
# python3-torch, /usr/bin/python3; a third case is a RoPE decoder with RMSNorm and ReLU, a fourth
# a masked-LM encoder step, post-LayerNorm, on BERT-masked examples, a fifth an attention-only
# decoder on the repeated-sequence task's examples, loss on the second copy), comparing every step's loss and gradient norm, every
# gradient tensor of the last step and every final weight. Tolerances: see torch_grad.py.
# Prints one line per check, then "N passed, N failed"; exit 1 on failure.
BUILD=${BUILD:-build}
PY=/usr/bin/python3
if [ ! -x "$PY" ] || ! "$PY" "$(dirname "$0")/py_has.py" torch 2>/dev/null; then
    echo "torch_grad: PyTorch is missing for $PY; install it with: apt-get install -y python3-torch"
    echo "0 passed, 1 failed"
    exit 1
fi
if [ ! -x "$BUILD/tools/train_ref" ]; then
    echo "torch_grad: $BUILD/tools/train_ref is not built (make unit)"
    echo "0 passed, 1 failed"
    exit 1
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for case in decoder encdec rope encoder attn-only; do
    if ! "$BUILD/tools/train_ref" "$case" "$dir"; then
        echo "torch_grad: train_ref $case failed"
        echo "0 passed, 1 failed"
        exit 1
    fi
done
"$PY" "$(dirname "$0")/torch_grad.py" "$dir" decoder encdec rope encoder attn-only
