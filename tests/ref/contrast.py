#!/usr/bin/env python3
"""contrast.py - measures the heatmap ramps of the light and projector themes (attend
--themes) with WCAG 2.1 contrast ratios computed from the xterm-256 palette's RGB values
(16-231: the 6x6x6 cube with levels 0,95,135,175,215,255; 232-255: greys 8+10i; 0-15: the
xterm defaults). Each step of a ramp must hold the minimum the theme states (its "min" line)
against the theme's background, against the colour its numbers are printed in, and against
the step before it; luminance must rise step by step (the viridis order). Prints one ok/FAIL
line per check and "N passed, N failed". Usage: contrast.py ATTEND_BINARY"""
import subprocess
import sys

BASE16 = [(0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205),
          (0, 205, 205), (229, 229, 229), (127, 127, 127), (255, 0, 0), (0, 255, 0),
          (255, 255, 0), (92, 92, 255), (255, 0, 255), (0, 255, 255), (255, 255, 255)]
LEVELS = [0, 95, 135, 175, 215, 255]


def rgb(i):
    if i < 16:
        return BASE16[i]
    if i < 232:
        i -= 16
        return (LEVELS[i // 36], LEVELS[i // 6 % 6], LEVELS[i % 6])
    g = 8 + 10 * (i - 232)
    return (g, g, g)


def lum(i):
    def ch(v):
        v /= 255.0
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4
    r, g, b = rgb(i)
    return 0.2126 * ch(r) + 0.7152 * ch(g) + 0.0722 * ch(b)


def ratio(a, b):
    la, lb = sorted((lum(a), lum(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
        print("ok - " + what)
    else:
        failed += 1
        print("FAIL - " + what)


out = subprocess.run([sys.argv[1], "--themes"], capture_output=True, text=True).stdout
themes, ramps, ramps8, mins = {}, {}, {}, {}
for ln in out.splitlines():
    f = ln.split("\t")
    if f[0] == "theme":
        themes[f[1]] = (int(f[2]), int(f[3]))
    elif f[0] == "ramp":
        ramps.setdefault(f[1], []).append((int(f[3]), int(f[4])))
    elif f[0] == "ramp8":
        ramps8.setdefault(f[1], []).append((int(f[3]), int(f[4])))
    elif f[0] == "min":
        mins[f[1]] = tuple(float(x) for x in f[2:5])

# the palette itself: a few indices with known RGB, so the formula above is the xterm one
check(rgb(16) == (0, 0, 0) and rgb(231) == (255, 255, 255) and rgb(53) == (95, 0, 95)
      and rgb(220) == (255, 215, 0) and rgb(244) == (128, 128, 128), "xterm-256 palette RGB")
check(abs(ratio(16, 231) - 21.0) < 1e-9, "black on white is 21:1")
for name in ("projector", "light"):
    check(name in themes and name in mins and len(ramps.get(name, [])) == 6,
          "%s: theme, minimums and a 6-step ramp are listed" % name)
    if name not in themes or name not in mins:
        continue
    bg, text = themes[name]
    mbg, mtxt, madj = mins[name]
    check(bg >= 0 and text >= 0, "%s paints its own background and text colours" % name)
    check(mtxt >= 4.5 and mbg >= 2.0 and madj >= 1.1,
          "%s states at least 4.5:1 for numbers, 2:1 against the background" % name)
    prev = None
    for s, (cell, num) in enumerate(ramps[name]):
        check(ratio(cell, bg) >= mbg, "%s step %d (%d) against background %d: %.2f >= %.2f"
              % (name, s, cell, bg, ratio(cell, bg), mbg))
        check(ratio(cell, num) >= mtxt, "%s step %d (%d) under its numbers (%d): %.2f >= %.2f"
              % (name, s, cell, num, ratio(cell, num), mtxt))
        if prev is not None:
            check(lum(cell) > lum(prev) and ratio(cell, prev) >= madj,
                  "%s step %d (%d) brighter than step %d (%d) by %.2f >= %.2f"
                  % (name, s, cell, s - 1, prev, ratio(cell, prev), madj))
        prev = cell
    # the text colour of the theme on its background
    check(ratio(text, bg) >= 7.0, "%s text on background: %.2f >= 7" % (name, ratio(text, bg)))
# 8 colours (xterm's defaults 0-7): lightness rises with the weight in every theme, and the
# numbers stay readable on each step
for name, steps in sorted(ramps8.items()):
    for s in range(1, len(steps)):
        a, b = steps[s - 1][0], steps[s][0]
        check(lum(b) > lum(a), "%s 8-colour step %d (%d) lighter than step %d (%d): %.3f > %.3f"
              % (name, s, b, s - 1, a, lum(b), lum(a)))
    for s, (cell, num) in enumerate(steps):
        # 3:1: the most xterm's eight colours give numbers on magenta (either black or white)
        check(ratio(cell, num) >= 3.0, "%s 8-colour step %d (%d) under its numbers (%d): %.2f"
              % (name, s, cell, num, ratio(cell, num)))
check(len(ramps8) == len(themes), "every theme lists its 8-colour ramp")
# the projector's neighbouring steps at least 1.24:1 apart (1.15 was too close to see)
check(mins.get("projector", (0, 0, 0))[2] >= 1.24, "projector: neighbours stated 1.24:1 apart")
# the projector ramp has no step darker than 3:1 on black (the dark purple that vanished)
proj = ramps.get("projector", [])
check(proj and min(ratio(c, 16) for c, _ in proj) >= 3.0,
      "projector: no step under 3:1 against black")
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
