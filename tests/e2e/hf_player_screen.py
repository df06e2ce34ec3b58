#!/usr/bin/python3
"""hf_player_screen.py - what the player must show on a Hugging Face model, computed from
`attend dump --format json` of the same model and sentence and from its config.json, checked
against a screen capture (tests/e2e/test_hf_player.sh).

usage: hf_player_screen.py WHAT SCREEN ATTEND MODEL_DIR SENTENCE [ascii]
WHAT: heads (the river-bank page, all heads of the start layer), passport-N (step N of the
passport, from 1), next (the next-token page). Prints one line per expectation met; exit 1 with
what is missing otherwise. Whitespace is collapsed on both sides (prose wraps).
"""
import json
import re
import subprocess
import sys


def dump(attend, model, sentence, *extra):
    p = subprocess.run([attend, "dump", "--model", model, "--sentence", sentence, "--format",
                        "json"] + list(extra), capture_output=True, text=True, timeout=60)
    if p.returncode:
        sys.exit("dump failed: " + p.stderr.strip()[:300])
    return json.loads(p.stdout)


def tag(h):
    """head_stat's verdict: the largest of prev, self, first at 0.4 or more (ties: later)."""
    best, name = 0.4, None
    for key in ("prev", "self", "first"):
        if h[key] >= best:
            best, name = h[key], key
    return "%s %.2f" % (name, best) if name else "mixed"


def expectations(what, attend, model, sentence, times):
    cfg = json.load(open(model + "/config.json"))
    run = dump(attend, model, sentence)
    n_layers, n_heads = run["config"]["n_layers"], run["config"]["n_heads"]
    want = []
    if what == "heads":
        layer = min(1, n_layers - 1)  # the page starts on layer 1
        heads = dump(attend, model, sentence, "--heads")["heads"]
        for h in heads:
            if h["layer"] == layer:
                want.append("head %d %s" % (h["head"], tag(h)))
        pair = dump(attend, model, sentence, "--pair", "bank,river")["heads"][0]
        want.append("all %d%s%d heads, head %d of layer %d links them most, %.2f" % (
            n_layers, times, n_heads, pair["head"], pair["layer"], pair["weight"]))
        want.append("layer %d of %d" % (layer, n_layers))
    elif what.startswith("passport-"):
        step = int(what.split("-")[1])
        d = cfg["n_embd"]
        files = {1: "wte.weight [%d, %d]" % (cfg["vocab_size"], d),
                 2: "wpe.weight [%d, %d]" % (cfg["n_positions"], d),
                 4: "h.0.ln_1.weight [%d], h.0.ln_1.bias [%d]" % (d, d),
                 5: "h.0.attn.c_attn.weight [%d, %d], h.0.attn.c_attn.bias [%d]" % (d, 3 * d, 3 * d)}
        want.append("in the files: " + files[step])
        want.append("reads your sentence as %d tokens" % len(run["token_ids"]))
        want.append("step %d/" % step)
    elif what == "next":
        nxt = dump(attend, model, sentence, "--next", "4")["next"]
        want.append(" ".join("%.3f" % t["p"] for t in nxt))
    return want


def main():
    what, screen_file, attend, model, sentence = sys.argv[1:6]
    ascii_mode = len(sys.argv) > 6 and sys.argv[6] == "ascii"
    screen = open(screen_file, encoding="utf-8", errors="replace").read()
    flat = " ".join(screen.split())
    # wide screens put the prose left of a rule (│, | in ASCII): its sentences wrap there
    left = " ".join(" ".join(re.split("[\u2502|]", l, 1)[0] for l in screen.splitlines()).split())
    flat = flat + " \n " + left
    if what == "next":  # the candidates' probabilities, in order, whatever the token text
        lines = screen.splitlines()
        probs = []
        for i, l in enumerate(lines):
            if "next, p" in l:  # one line: token p  token p ...
                probs = re.findall(r"\b[01]\.\d{3}\b", l.split("next, p", 1)[1])
            elif "next token: p" in l:  # tall panes: one candidate a line
                for c in lines[i + 1:]:
                    c = c.split("\u2502")[-1]
                    m = re.search(r"\b[01]\.\d{3}\b", c)
                    if not m:
                        break
                    probs.append(m.group(0))
        flat = " ".join(probs)
    missing = []
    for w in expectations(what, attend, model, sentence, "x" if ascii_mode else "\u00d7"):
        w = " ".join(w.split())
        if w in flat:
            print("shown: " + w)
        else:
            missing.append(w)
    for w in missing:
        print("MISSING: " + w)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
