# harness.py - attend's lab harness for Python: attend runs it as
#   python3 -I harness.py LEARNER.py
# in the learner's directory, the cases on stdin; it imports the learner's file, calls its
# functions and writes the results to file descriptor 3 (attend reads them strictly and checks
# every number against its engine). The formats are in docs/labs.md.
import os
import sys
import traceback


def one_line(text, limit=240):
    text = " ".join(str(text).split())
    return text[:limit] + ("..." if len(text) > limit else "")


def read_cases(lines):
    """The cases attend sent: [(func, step, n_outs, [args], [names])]."""
    it = iter(lines)
    head = next(it)
    if head != "attend-lab 1":
        raise ValueError("not an attend lab input")
    lab = next(it).split()[1]
    torch = next(it).split()[1] == "1"
    n = int(next(it).split()[1])
    cases = []
    for _ in range(n):
        _, _, func, mode, n_args, n_outs = next(it).split()
        args, names = [], []
        for _ in range(int(n_args)):
            f = next(it).split()
            names.append(f[1])
            if f[2] == "none":
                args.append(None)
            elif f[2] == "int":
                args.append(int(f[3]))
            else:
                dims = [int(x) for x in f[4:4 + int(f[3])]]
                args.append((dims, [float(x) for x in next(it).split()]))
        cases.append((func, mode == "step", int(n_outs), args, names))
    return lab, torch, cases


def where(exc, path):
    """ ' (line N)' of the deepest frame in the learner's file, or ''."""
    line = ""
    for fr in traceback.extract_tb(exc.__traceback__):
        if os.path.abspath(fr.filename) == path:
            line = " (line %d)" % fr.lineno
    return line


def as_array(np, x, what):
    try:
        a = np.asarray(x, dtype=np.float64)
    except Exception:
        raise TypeError("%s is %s, not an array of numbers" % (what, type(x).__name__))
    if a.ndim == 0 or a.ndim > 3:
        raise TypeError("%s has %d axes (shape %s), expected an array of 1 to 3 axes"
                        % (what, a.ndim, tuple(a.shape)))
    return a


def run_case(np, fn, func, step, n_outs, args, names, changed):
    """The function's results as arrays; the names of the arguments it changed in place are
    appended to changed."""
    vals = [None if a is None or isinstance(a, int)
            else np.array(a[1], dtype=np.float64).reshape(a[0]) for a in args]
    vals = [args[i] if isinstance(args[i], int) else v for i, v in enumerate(vals)]
    before = [v.copy() if isinstance(v, np.ndarray) else None for v in vals]
    if step:
        cache, rows = {}, []
        for t in range(vals[0].shape[0]):
            r = as_array(np, fn(cache, *[v[t].copy() for v in vals]),
                         "step %d's result" % t)
            if r.ndim != 1:
                raise TypeError("step %d returned shape %s, expected one row (d_v,)"
                                % (t, tuple(r.shape)))
            rows.append(r)
        if len({r.shape for r in rows}) > 1:
            raise TypeError("the steps returned rows of different lengths")
        return [np.stack(rows)]
    got = fn(*vals)
    if n_outs == 1:
        if isinstance(got, tuple):
            raise TypeError("%s returned a tuple of %d, expected one array" % (func, len(got)))
        res = [as_array(np, got, "the result")]
    elif not isinstance(got, (tuple, list)) or len(got) != n_outs:
        raise TypeError("%s returned %s, expected a pair (output, weights)"
                        % (func, type(got).__name__))
    else:
        res = [as_array(np, g, "result %d" % i) for i, g in enumerate(got)]
    for name, b, v in zip(names, before, vals):
        if b is not None and (v.shape != b.shape or not np.array_equal(b, v, equal_nan=True)):
            changed.append(name)
    return res


def torch_step(np, out, cases, results):
    """Compares the learner's attention outputs with PyTorch's on the same inputs."""
    try:
        import torch
        import torch.nn.functional as F
    except Exception:
        out("torch absent PyTorch is not installed")
        return
    api = "scaled_dot_product_attention"
    worst, n = 0.0, 0
    for (func, step, n_outs, args, names), res in zip(cases, results):
        if res is None:
            continue
        q, k, v = [torch.tensor(np.array(a[1]).reshape(a[0]))[None] for a in args[:3]]
        mask = None if args[3] is None else torch.tensor(np.array(args[3][1]).reshape(args[3][0]))
        if mask is not None and bool(torch.isinf(mask).all(dim=-1).any()):
            continue  # PyTorch gives NaN for a fully masked row; attend's convention is 0
        if hasattr(F, "scaled_dot_product_attention"):
            ref = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        else:
            api = "_scaled_dot_product_attention (PyTorch %s)" % torch.__version__
            ref, _ = F._scaled_dot_product_attention(q, k, v, attn_mask=mask)
        diff = float(np.max(np.abs(ref[0].numpy() - res[0]))) if res[0].size else 0.0
        worst = max(worst, diff) if diff == diff else float("inf")
        n += 1
    out("torch ok %r %d %s" % (worst, n, api))


def main():
    try:
        res = os.fdopen(3, "w")
    except OSError:
        sys.stderr.write("harness.py is run by attend lab check, not by hand\n")
        return 2

    def out(line):
        res.write(line + "\n")

    out("attend-lab-result 1")
    try:
        import numpy as np
    except ImportError:
        out("fatal numpy numpy is not installed")
        return 0
    path = os.path.abspath(sys.argv[1])
    try:
        lab, want_torch, cases = read_cases(sys.stdin.read().split("\n"))
    except Exception as e:
        out("fatal harness cannot read the cases: " + one_line(e))
        return 0
    sys.path.insert(0, os.path.dirname(path))
    import importlib.util
    try:
        spec = importlib.util.spec_from_file_location("attend_lab_" + lab, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    except SyntaxError as e:
        out("fatal import %s:%s:%s: SyntaxError: %s" % (sys.argv[1], e.lineno, e.offset,
                                                        one_line(e.msg)))
        return 0
    except BaseException as e:
        out("fatal import %s%s: %s: %s" % (sys.argv[1], where(e, path), type(e).__name__,
                                           one_line(e)))
        return 0
    results = []
    for i, (func, step, n_outs, args, names) in enumerate(cases):
        fn = getattr(mod, func, None)
        if not callable(fn):
            out("fatal missing %s defines no function %s" % (sys.argv[1], func))
            return 0
        changed = []
        try:
            got = run_case(np, fn, func, step, n_outs, args, names, changed)
        except BaseException as e:
            results.append(None)
            out("case %d error %s: %s%s" % (i, type(e).__name__, one_line(e), where(e, path)))
            continue
        results.append(got)
        out("case %d ok %d" % (i, len(got)))
        for name, a in zip(["out", "weights"], got):
            out("%s %d %s" % (name, a.ndim, " ".join(str(d) for d in a.shape)))
            out(" ".join(map(repr, a.ravel().tolist())))
        if changed:
            out("mutated " + " ".join(changed))
    if want_torch and lab == "attention":
        torch_step(np, out, cases, results)
    out("end")
    res.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
