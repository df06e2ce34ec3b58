"""Course coverage: every concept the course must teach is on a page that has a live widget or a
question, and the source material's drills and practice problems are questions of the course.
Reads lessons/*.json directly (tags: a page's "concepts"; drills: question ids)."""
import glob
import json
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
LESSONS = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "lessons")

CONCEPTS = {
    "identical-keys-uniform": "identical keys give uniform attention (the toy example)",
    "mask-after-softmax": "the mask applied after softmax: the common mistake, shown live",
    "qkv-projections": "Q/K/V as projections",
    "scaled-dot-product": "scaled dot-product attention",
    "multi-head": "multi-head attention",
    "head-splitting": "head splitting and per-head dimension",
    "output-projection": "the output projection W_O",
    "ffn": "the position-wise FFN",
    "add-norm": "the Add & Norm block",
    "encoder-stack": "the encoder stack",
    "decoder-stack": "the decoder stack (masked self-attention, cross-attention, FFN)",
    "causal-masking": "causal masking",
    "additive-mask": "additive masking with -inf",
    "embedding-scaling": "embedding scaling",
    "hyperparameters": "hyperparameters (d_model, d_ff, h, number of layers)",
    "why-multiple-heads": "why several heads",
    "shapes-batching": "shape and batching conventions",
    "positional-encoding": "positional encoding",
    "permutation-equivariance": "permutation equivariance",
    "kv-cache": "the KV cache",
}
DRILLS = {
    "drill-qk-entries": "the number of entries of QK^T from the shape passport",
    "drill-causal-a23": "A[2][3] under the causal mask",
    "drill-equivariance": "the equivariance difference as one number",
    "practice-softmax-3x3": "practice: a 3x3 softmax by hand",
    "practice-shapes-1024": "practice: shapes for d_model = 1024, h = 16, L = 128",
    "practice-mask-where": "practice: where the mask acts and what goes wrong without it",
}

passed = failed = 0
taught = {}
questions = {}
files = sorted(glob.glob(os.path.join(LESSONS, "[0-9]*.json")))
for f in files:
    with open(f) as fh:
        lesson = json.load(fh)
    for i, page in enumerate(lesson.get("pages", [])):
        widget = page.get("widget", {}).get("kind", "none")
        qs = page.get("questions", [])
        for q in qs:
            questions.setdefault(q.get("id", ""), []).append("%s page %d" % (lesson["id"], i + 1))
        live = widget != "none" or len(qs) > 0
        for c in page.get("concepts", []):
            if c not in CONCEPTS:
                print("FAIL %s page %d: unknown concept tag %r" % (os.path.basename(f), i + 1, c))
                failed += 1
            elif live:
                taught.setdefault(c, []).append("%s page %d" % (lesson["id"], i + 1))

for tag, what in CONCEPTS.items():
    if tag in taught:
        passed += 1
        print("ok   %-26s %s" % (tag, ", ".join(taught[tag][:3])))
    else:
        failed += 1
        print("FAIL %-26s %s: no page with a widget or a question teaches it" % (tag, what))
for qid, what in DRILLS.items():
    if qid in questions:
        passed += 1
        print("ok   %-26s %s" % (qid, questions[qid][0]))
    else:
        failed += 1
        print("FAIL %-26s %s: no question with this id" % (qid, what))
if not files:
    failed += 1
    print("FAIL no lessons in %s" % LESSONS)
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
