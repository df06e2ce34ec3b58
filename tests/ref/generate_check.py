"""generate_check.py - checks for tests/ref/generate.sh (run with /usr/bin/python3; no numpy):

  step WIDGET.json DUMP.json VOCAB [PREV_WIDGET.json]
      the generate widget's numbers at one step (`attend export --lesson ... --format json` of
      a generate page) against `attend dump --sentence TOKENS --format json` of its text:
      the tokens; the run's tensors; the cache rows K and V and the new query's weights of
      the widget's layer and head, to all 9 digits; the listed candidates (the most likely
      tokens but <pad> and <unk>) and their probabilities, the softmax of dump's last row of
      logits (and at the temperature when sampling); greedy picks the top one; the work so
      far recomputed from the config; with the previous step's widget: its cache rows are
      this step's first rows, one row added.
  cli WIDGET.json CLI_OUTPUT   the widget's text is the text `attend generate` printed (with
      the same prompt, temperature, seed and --max-tokens the step), spaces aside.
Prints one line per problem; exits 1 if any."""
import json
import math
import struct
import sys

problems = []


def bad(msg):
    problems.append(msg)


def f32(x):
    """The float32 value x stands for (dump writes 9 digits: enough to get the float back,
    not its exact value as a double)."""
    return struct.unpack("f", struct.pack("f", x))[0]


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def layer_macs(c, nq, nk):
    d, hd, F = c["d_model"], c["n_heads"] * c["d_head"], c["d_ff"]
    ffn = (3 if c["ffn"] == "swiglu" else 2) * nq * d * F
    return 3 * nq * d * hd + 2 * nq * nk * hd + nq * hd * d + ffn


def step_macs(c, nq, nk):
    return c["n_layers"] * layer_macs(c, nq, nk) + nq * c["d_model"] * c["vocab_size"]


def check_step(widget_path, dump_path, vocab_path, prev_path=None):
    w = load(widget_path)
    g, run, d = w["generate"], w["run"], load(dump_path)
    vocab = open(vocab_path, encoding="utf-8").read().split("\n")
    banned = {vocab.index("<pad>"), vocab.index("<unk>")}
    n, step, L, H = len(g["tokens"]), g["step"], g["layer"], g["head"]
    if g["tokens"] != d["tokens"] or run["tokens"] != d["tokens"]:
        bad("tokens: widget %s, dump %s" % (g["tokens"], d["tokens"]))
        return
    if n != len(g["prompt"]) + step or g["tokens"][: len(g["prompt"])] != g["prompt"]:
        bad("the text is not the prompt and %d tokens" % step)
    if run["layers"] != d["layers"] or run["tensors"] != d["tensors"]:
        bad("the widget's run differs from dump's")
    head = d["layers"][L]["heads"][H]
    kname = "k_rot" if "k_rot" in head else "k"
    if g["k"] != head[kname]:
        bad("step %d: K rows differ from dump's L%d.h%d.%s" % (step, L, H, kname))
    if g["v"] != head["v"]:
        bad("step %d: V rows differ from dump's" % step)
    if g["query_weights"] != head["weights"][-1]:
        bad("step %d: the new query's weights differ from dump's last row" % step)
    if len(g["k"]) != n:
        bad("step %d: %d cache rows for %d tokens" % (step, len(g["k"]), n))
    # probabilities: softmax of dump's last row of logits
    logits = [f32(x) for x in d["tensors"]["logits"][-1]]
    mx = max(logits)
    z = sum(math.exp(x - mx) for x in logits)
    p = [math.exp(x - mx) / z for x in logits]
    ok_ids = [j for j in range(len(logits)) if j not in banned]
    want = sorted(ok_ids, key=lambda j: -logits[j])[: len(g["top"])]
    got = [t["token"] for t in g["top"]]
    if got != [vocab[j] for j in want]:
        bad("step %d: candidates %s, dump's most likely %s" % (step, got,
                                                              [vocab[j] for j in want]))
    T = f32(g["temperature"])
    if T > 0:
        mxa = max(logits[j] for j in ok_ids)
        zt = sum(math.exp((logits[j] - mxa) / T) for j in ok_ids)
    for t, j in zip(g["top"], want):
        if abs(t["p"] - p[j]) > 1e-12 * max(1.0, p[j]):
            bad("step %d: p(%s) %.17g, softmax of dump's logits %.17g" % (step, t["token"],
                                                                       t["p"], p[j]))
        pt = math.exp((logits[j] - mxa) / T) / zt if T > 0 else 0.0
        if abs(t["p_temperature"] - pt) > 1e-12:
            bad("step %d: p at T=%g of %s: %.17g, want %.17g" % (step, T, t["token"],
                                                              t["p_temperature"], pt))
    nid = vocab.index(g["next"])
    if abs(g["next_p"] - p[nid]) > 1e-12:
        bad("step %d: next_p %.17g, want %.17g" % (step, g["next_p"], p[nid]))
    if g["greedy"] and g["next"] != vocab[want[0]]:
        bad("step %d: greedy appends %s, not the most likely %s" % (step, g["next"],
                                                                   vocab[want[0]]))
    # the work so far
    c = d["config"]
    np_ = len(g["prompt"])
    runs = [np_ + i for i in range(step + 1)]
    macs_c = step_macs(c, np_, np_) + sum(step_macs(c, 1, k) for k in runs[1:])
    macs_f = sum(step_macs(c, k, k) for k in runs)
    if (g["rows_cached"], g["rows_full"]) != (n, sum(runs)):
        bad("step %d: K,V rows %d / %d, want %d / %d" % (step, g["rows_cached"], g["rows_full"],
                                                        n, sum(runs)))
    if (g["macs_cached"], g["macs_full"]) != (macs_c, macs_f):
        bad("step %d: multiply-adds %d / %d, want %d / %d" % (step, g["macs_cached"],
                                                             g["macs_full"], macs_c, macs_f))
    if (g["reused_rows"], g["new_rows"]) != ((n - 1, 1) if step else (0, n)):
        bad("step %d: reused %d, new %d" % (step, g["reused_rows"], g["new_rows"]))
    if step and g["reuse_drift"] != 0:
        bad("step %d: reused rows drift by %g" % (step, g["reuse_drift"]))
    if prev_path:
        pg = load(prev_path)["generate"]
        if pg["tokens"] != g["tokens"][:-1]:
            bad("step %d: the text is not the last step's plus one token" % step)
        if g["k"][:-1] != pg["k"] or g["v"][:-1] != pg["v"]:
            bad("step %d: the earlier cache rows are not the last step's" % step)
        if g["tokens"][-1] != pg["next"]:
            bad("step %d: appended %s, the last step chose %s" % (step, g["tokens"][-1],
                                                                pg["next"]))


def check_cli(widget_path, cli_path):
    g = load(widget_path)["generate"]
    cli = open(cli_path, encoding="utf-8").read()
    a, b = "".join(g["tokens"]), "".join(cli.split())
    if a != b:
        bad("step %d: the widget wrote %r, attend generate %r" % (g["step"], a, b))


def main(argv):
    if len(argv) >= 5 and argv[1] == "step":
        check_step(argv[2], argv[3], argv[4], argv[5] if len(argv) > 5 else None)
    elif len(argv) == 4 and argv[1] == "cli":
        check_cli(argv[2], argv[3])
    else:
        print(__doc__)
        return 2
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
