#!/usr/bin/env bash
# ascii_glyphs.sh - every glyph the lessons and widgets use has an ASCII form (ascii_glyphs.py).
cd "$(dirname "$0")/../.." || exit 1
exec /usr/bin/python3 tests/ref/ascii_glyphs.py
