#!/usr/bin/python3
"""ascii_glyphs.py - every non-ASCII character the lessons and the code's string literals use has an
ASCII spelling in ui_text.c's TRANSLIT table (block elements: safetext_block_ascii) (LANG=C and --ascii never print "?" for it).
Prints "N passed, N failed"."""
import os
os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import re,glob,json,sys
ui=open('src/session/ui_text.c',encoding='utf-8').read()
start=ui.index('TRANSLIT[] = {'); tab=ui[start:ui.index('};',start)]
keys=set()
for u in re.findall(r'\{"((?:[^"\\]|\\.)*)", "',tab):
    u=re.sub(r'\\u([0-9a-fA-F]{4})', lambda m: chr(int(m.group(1),16)), u)
    keys.add(u)
single=set(k for k in keys if len(k)==1)
# the block elements U+2580..U+259F: safetext_block_ascii's one rule (src/engine/safetext.c)
single|=set(chr(c) for c in range(0x2580,0x25A0))
need={}
def scan(text, where):
    for ch in text:
        if ord(ch)>127 and ch not in single:
            need.setdefault(ch,set()).add(where)
for f in glob.glob('lessons/*.json'):
    scan(open(f,encoding='utf-8').read(), f)
for f in glob.glob('src/*/*.c'):
    for line in open(f,encoding='utf-8'):
        for lit in re.findall(r'"((?:[^"\\]|\\.)*)"', line):
            scan(lit, f)
import sys
single_count = len(single)
ok = single_count > 40
print(("ok" if ok else "FAIL") + " - the TRANSLIT table was read (%d entries)" % single_count)
passed, failed = (1, 0) if ok else (0, 1)
if need:
    failed += 1
    print("FAIL - characters with no ASCII spelling:")
    for ch, w in sorted(need.items()):
        print("    %r U+%04X in %s" % (ch, ord(ch), ", ".join(sorted(w)[:3])))
else:
    passed += 1
    print("ok - every non-ASCII character of the lessons and the code has an ASCII spelling")
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
