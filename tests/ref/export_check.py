"""export_check.py - checks for tests/ref/export.sh (run with /usr/bin/python3; no numpy):

  numbers SVG CSV JSON DUMPTXT LAYER HEAD KIND   the heatmap's numbers equal dump's: every
      CSV value and every SVG cell's data-v equals `dump --format json` to all 9 digits, every
      value printed in an SVG cell equals the JSON value at the precision shown (and dump's
      text table, for weights), masked cells are marked masked, labels are the tokens.
      KIND: weights | masked (scores) | cross (cross-attention weights).
  colours SVG PNG   the rendered heatmap's unmasked cells get lighter as the weight rises,
      and masked cells are neutral grey.
Prints one line per problem; exits 1 if any."""
import json
import struct
import sys
import xml.etree.ElementTree as ET
import zlib

NS = "{http://www.w3.org/2000/svg}"
problems = []


def f32(x):
    """The float32 value x stands for, as a double (what C printed with %.3f)."""
    return struct.unpack("f", struct.pack("f", x))[0]


def g9(x):
    """C's %.9g of a double (Python's %g matches C's)."""
    return "%.9g" % x


def svg_cells(path):
    """{(i, j): (data-v, masked, text shown or None)}, row labels, column labels, row sums."""
    root = ET.parse(path).getroot()
    grid = next(g for g in root.iter(NS + "g") if g.get("id", "").startswith("grid"))
    cells, last = {}, None
    rows, cols = {}, {}
    kids = list(grid)
    for el in kids:
        if el.tag == NS + "rect" and el.get("class") == "cell":
            last = (int(el.get("data-i")), int(el.get("data-j")))
            cells[last] = [el.get("data-v"), el.get("data-masked") == "1", None,
                           float(el.get("x")), float(el.get("y")),
                           float(el.get("width")), float(el.get("height"))]
        elif el.tag == NS + "text":
            anchor = el.get("text-anchor")
            if anchor == "middle" and last is not None:
                cells[last][2] = el.text
            elif anchor == "end":  # a row label
                rows[len(rows)] = el.text
            elif anchor == "start" and "rotate" in el.get("transform", ""):
                cols[len(cols)] = el.text
    sums = [el.text for el in root.iter(NS + "text") if el.get("class") == "rowsum"]
    return cells, rows, cols, sums


def matrix(js, layer, head, kind):
    if kind == "cross":
        return js["decoder_layers"][layer]["cross_heads"][head]["weights"]
    return js["layers"][layer]["heads"][head][kind]


def dump_table(txt):
    """The weights of dump's text table: rows of strings ('--' masked), and the row sums."""
    lines = txt.splitlines()
    start = next(i for i, l in enumerate(lines) if "attention weights" in l) + 2
    vals, sums = [], []
    for l in lines[start:]:
        if "|" not in l:
            break
        left, right = l.rsplit("|", 1)
        sums.append(right.strip())
        vals.append(left.split())
    return vals, sums


def numbers(svg, csv, js_path, dump_txt, layer, head, kind):
    js = json.load(open(js_path))
    M = matrix(js, layer, head, kind)
    n, m = len(M), len(M[0])
    cells, rows, cols, sums = svg_cells(svg)
    if len(cells) != n * m:
        problems.append("SVG has %d cells, JSON %dx%d" % (len(cells), n, m))
    masked_json = None
    if kind != "masked":
        masked_json = js["layers"][layer]["heads"][head]["masked"] if kind == "weights" else \
            js["decoder_layers"][layer]["cross_heads"][head]["masked"]
    for (i, j), (v, masked, shown, *_) in cells.items():
        want = M[i][j]
        want_masked = (want is None) if kind == "masked" else (masked_json[i][j] is None)
        if masked != want_masked:
            problems.append("cell %d,%d masked=%s, JSON says %s" % (i, j, masked, want_masked))
        if want is None:
            if v != "-inf":
                problems.append("cell %d,%d data-v %s, want -inf" % (i, j, v))
            continue
        if v != g9(want):
            problems.append("cell %d,%d data-v %s != JSON %s" % (i, j, v, g9(want)))
        if shown is not None and not masked:
            prec = 3 if kind != "masked" else 2
            if shown != "%.*f" % (prec, f32(want)):
                problems.append("cell %d,%d shows %s, JSON %.9g" % (i, j, shown, want))
    tokens = js["target_tokens"] if kind == "cross" else js["tokens"]
    keys = js["tokens"]
    if [rows[i] for i in sorted(rows)] != tokens[:n]:
        problems.append("row labels %s != tokens %s" % (list(rows.values()), tokens))
    if [cols[j] for j in sorted(cols)] != keys[:m]:
        problems.append("column labels %s != tokens %s" % (list(cols.values()), keys))
    # CSV: labels and every value at full precision
    lines = open(csv).read().splitlines()
    head_row = lines[0].split(",")
    if head_row[1:] != keys[:m]:
        problems.append("CSV header %s" % head_row)
    for i, l in enumerate(lines[1:]):
        f = l.split(",")
        if f[0] != tokens[i]:
            problems.append("CSV row %d label %s" % (i, f[0]))
        for j, s in enumerate(f[1:]):
            want = M[i][j]
            if s != ("-inf" if want is None else g9(want)):
                problems.append("CSV %d,%d: %s != %s" % (i, j, s, want))
    if len(lines) - 1 != n:
        problems.append("CSV has %d rows, want %d" % (len(lines) - 1, n))
    if dump_txt != "-" and kind != "masked":  # dump's text table, to the 3 decimals shown
        vals, dsums = dump_table(open(dump_txt).read())
        for i, row in enumerate(vals):
            for j, s in enumerate(row[-m:]):
                c = cells[(i, j)]
                if s == "--" and not c[1]:
                    problems.append("dump masks %d,%d, the SVG does not" % (i, j))
                if s != "--" and c[2] != s:
                    problems.append("cell %d,%d: SVG %s, dump %s" % (i, j, c[2], s))
        if dsums != sums:
            problems.append("row sums: SVG %s, dump %s" % (sums, dsums))
    print("numbers: %d cells, %d CSV rows checked" % (len(cells), len(lines) - 1))


def png_pixels(path):
    """(width, height, get(x, y) -> (r, g, b)) of an 8-bit RGB/RGBA non-interlaced PNG."""
    try:
        from PIL import Image
        im = Image.open(path).convert("RGB")
        return im.size[0], im.size[1], lambda x, y: im.getpixel((x, y))
    except ImportError:
        pass
    d = open(path, "rb").read()
    pos, idat, w = 8, b"", 0
    while pos < len(d):
        ln, typ = struct.unpack(">I4s", d[pos:pos + 8])
        body = d[pos + 8:pos + 8 + ln]
        if typ == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and interlace == 0, "unsupported PNG"
            bpp = 4 if ctype == 6 else 3
        elif typ == b"IDAT":
            idat += body
        pos += 12 + ln
    raw, stride = zlib.decompress(idat), w * bpp
    img, prev, p = [], bytearray(stride), 0
    for _ in range(h):
        ft, line = raw[p], bytearray(raw[p + 1:p + 1 + stride])
        p += 1 + stride
        for k in range(stride):
            a = line[k - bpp] if k >= bpp else 0
            b, c = prev[k], prev[k - bpp] if k >= bpp else 0
            if ft == 1: line[k] = (line[k] + a) & 255
            elif ft == 2: line[k] = (line[k] + b) & 255
            elif ft == 3: line[k] = (line[k] + (a + b) // 2) & 255
            elif ft == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[k] = (line[k] + pr) & 255
        img.append(line)
        prev = line
    return w, h, lambda x, y: tuple(img[y][x * bpp:x * bpp + 3])


def lightness(rgb):
    """CIE L* of an sRGB colour."""
    def lin(c):
        c /= 255.0
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    y = 0.2126 * lin(rgb[0]) + 0.7152 * lin(rgb[1]) + 0.0722 * lin(rgb[2])
    return 116 * y ** (1 / 3) - 16 if y > 0.008856 else 903.3 * y


def colours(svg, png):
    cells = svg_cells(svg)[0]
    w, h, px = png_pixels(png)
    root = ET.parse(svg).getroot()
    sx = w / float(root.get("width"))
    pts = []
    for (i, j), (v, masked, _, x, y, cw, ch) in cells.items():
        rgb = px(int((x + 3) * sx), int((y + 3) * sx))
        if masked:
            if max(rgb) - min(rgb) > 12:
                problems.append("masked cell %d,%d is not grey: %s" % (i, j, rgb))
            continue
        pts.append((float(v), lightness(rgb), (i, j)))
    pts.sort()
    if len(pts) < 2:
        problems.append("fewer than two unmasked cells")
        return
    for (v0, l0, c0), (v1, l1, c1) in zip(pts, pts[1:]):
        if v1 > v0 + 1e-6 and l1 < l0 - 0.5:
            problems.append("cell %s weight %.4f is darker (L*=%.1f) than cell %s weight %.4f "
                            "(L*=%.1f)" % (c1, v1, l1, c0, v0, l0))
    if pts[-1][1] - pts[0][1] < 40:
        problems.append("lightness spans only %.1f L* from the smallest to the largest weight"
                        % (pts[-1][1] - pts[0][1]))
    print("colours: %d unmasked cells in order, L* %.1f..%.1f" % (len(pts), pts[0][1],
                                                                     pts[-1][1]))


if __name__ == "__main__":
    if sys.argv[1] == "numbers":
        numbers(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6]),
                int(sys.argv[7]), sys.argv[8])
    else:
        colours(sys.argv[2], sys.argv[3])
    for p in problems[:20]:
        print("PROBLEM:", p)
    sys.exit(1 if problems else 0)
