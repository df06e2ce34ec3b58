"""py_has.py MODULE... - exits 0 when every module named is installed, else 1 naming the missing.
Found, not imported: the suites ask before they run, and importing torch costs ~2 s of CPU,
which the suite's own run then pays again (make check's speed)."""
import importlib.util
import sys

missing = [m for m in sys.argv[1:] if importlib.util.find_spec(m) is None]
if missing:
    print("missing:", " ".join(missing), file=sys.stderr)
sys.exit(1 if missing else 0)
