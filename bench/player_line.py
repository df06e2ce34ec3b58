#!/usr/bin/python3
"""player_line.py - the real player's first heatmap, timed in a real terminal (bench/hf_gpt2.py
calls it; a benchmark, not a test).

`attend --model DIR` opens on the first page that runs on the opened model: lesson 20's
"Which head links bank to river?", the heatmap of every head of layer 1 for "She sat by the
river bank." (the source's own exercise). It runs in tmux at 80x24 on a private socket (in a
temporary directory, removed after), started from a fifo so that the clock starts when the shell
execs attend, and it stops when
the page is on the screen: a tmux control-mode client hears every byte the player writes, and
after each burst the pane is captured (capture-pane) until the page's status line ("layer 1 of
N  head 0 of H"), its grid of heads ("head 0   head 1", or "h0 prev  h1 self" with what each does) and the footer ("q quit") are all
there: the markers the player draws once the forward has run, not a sleep. Peak RSS is the
process's VmHWM at that moment. One untimed run first (the file in the page cache: warm), in
which `a` shows one head's heatmap with the tokens as its column labels, compared with
`attend dump`'s tokens for the same sentence: the heatmap on screen is the sentence's."""
import os
import re
import select
import shutil
import statistics
import subprocess
import tempfile
import time

SENTENCE = "She sat by the river bank."
STATUS = re.compile(r"layer (\d+) of (\d+)\s+head (\d+) of (\d+)")
GRID = re.compile(r"^\s*h(?:ead )?0\b.*\bh(?:ead )?1\b")  # "head 0   head 1", or "h0 prev  h1 self"


class Control:
    """One tmux control-mode client: commands in, their output blocks out, and a flag set
    whenever the pane wrote something (%output)."""

    def __init__(self, sock, session):
        self.p = subprocess.Popen(["tmux", "-S", sock, "-C", "attach", "-t", session], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.buf = b""
        self.dirty = False
        self.block(None)  # the attach's own reply

    def line(self, deadline):
        """The next line (bytes, no newline), or None at the deadline or when tmux ends."""
        while b"\n" not in self.buf:
            left = deadline - time.perf_counter()
            if left <= 0 or not select.select([self.p.stdout], [], [], left)[0]:
                return None
            got = os.read(self.p.stdout.fileno(), 1 << 16)
            if not got:
                return None
            self.buf += got
        ln, self.buf = self.buf.split(b"\n", 1)
        if ln.startswith(b"%output"):
            self.dirty = True
        return ln

    def block(self, cmd, timeout=30.0):
        """Sends cmd (None: only reads) and returns its reply's lines (str), or None."""
        if cmd is not None:
            self.p.stdin.write(cmd.encode() + b"\n")
            self.p.stdin.flush()
        deadline, out, inside = time.perf_counter() + timeout, [], False
        while True:
            ln = self.line(deadline)
            if ln is None:
                return None
            if ln.startswith(b"%begin"):
                inside, out = True, []
            elif inside and (ln.startswith(b"%end") or ln.startswith(b"%error")):
                return out if ln.startswith(b"%end") else None
            elif inside:
                out.append(ln.decode("utf-8", "replace"))

    def close(self):
        try:
            self.p.stdin.close()
        except OSError:
            pass
        self.p.wait(timeout=10)


def on_screen(lines):
    """True when the page's heatmap is drawn: its status line, its grid of heads with a row
    under the header, and the footer."""
    if not any(STATUS.search(x) for x in lines) or not any("q quit" in x for x in lines):
        return False
    return any(GRID.search(x) and i + 1 < len(lines) and lines[i + 1].strip() for i, x in enumerate(lines))


def dump_tokens(attend, d):
    """The sentence's tokens as `attend dump` labels its weights' columns."""
    p = subprocess.run([attend, "dump", "--model", d, "--sentence", SENTENCE, "--layer", "1", "--head", "0"],
                       capture_output=True, text=True, check=True)
    lines = p.stdout.split("\n")
    for i, x in enumerate(lines):
        if x.startswith("self attention weights"):
            return lines[i + 1].split("|")[0].split()
    raise RuntimeError("attend dump printed no weights")


def screen_tokens(lines):
    """The column labels of the one-head heatmap on the screen (the row under its status line)."""
    for i, x in enumerate(lines):
        if STATUS.search(x) and i + 1 < len(lines):
            labels = lines[i + 1].split()
            return labels[:-1] if labels and labels[-1] == "sum" else labels
    return []


def one_run(attend, d, check=False, timeout=120.0):
    """One launch of `attend --model d` in tmux 80x24: (ms to the heatmap, peak RSS MB and CPU
    ms of the process at that moment, the screen, the one-head view's column labels when check)."""
    tmp = tempfile.mkdtemp(prefix="attend-player-bench-")
    sock, fifo = os.path.join(tmp, "tmux.sock"), os.path.join(tmp, "go")  # removed with tmp
    os.mkfifo(fifo)
    env = "XDG_STATE_HOME=%s/state XDG_CONFIG_HOME=%s/config LANG=C.UTF-8 LC_ALL=C.UTF-8" % (tmp, tmp)
    cmd = "read _ < %s; exec env %s %s --model %s" % (fifo, env, attend, d)
    subprocess.run(["tmux", "-S", sock, "-f", "/dev/null", "new-session", "-d", "-s", "b", "-x", "80", "-y", "24",
                    "sh", "-c", cmd], check=True)
    c = None
    try:
        subprocess.run(["tmux", "-S", sock, "set-option", "-g", "window-size", "manual"], check=True)
        c = Control(sock, "b")
        pid = int(c.block("display-message -p -t b '#{pane_pid}'")[0])
        with open(fifo, "w") as f:  # the shell is waiting in read: this starts attend
            t0 = time.perf_counter()
            f.write("\n")
        deadline, screen, ms, rss, cpu = t0 + timeout, [], None, 0.0, 0.0
        c.dirty = True
        while time.perf_counter() < deadline:
            if not c.dirty:
                if c.line(min(deadline, time.perf_counter() + 0.25)) is None and not c.dirty:
                    c.dirty = True  # a quiet quarter second: look anyway
                continue
            c.dirty = False
            screen = c.block("capture-pane -p -t b") or []
            if on_screen(screen):
                ms = (time.perf_counter() - t0) * 1e3
                with open("/proc/%d/status" % pid) as f:
                    rss = next(int(x.split()[1]) for x in f if x.startswith("VmHWM")) / 1024.0
                with open("/proc/%d/stat" % pid) as f:
                    st = f.read().rsplit(")", 1)[1].split()
                cpu = (int(st[11]) + int(st[12])) * 1e3 / os.sysconf("SC_CLK_TCK")
                break
        if ms is None:
            raise RuntimeError("no heatmap on the screen after %.0f s; the screen:\n%s" % (timeout, "\n".join(screen)))
        labels = []
        if check:
            c.block("send-keys -t b a")
            for _ in range(200):
                shot = c.block("capture-pane -p -t b") or []
                if any("query 0" in x for x in shot):
                    labels = screen_tokens(shot)
                    break
                c.line(time.perf_counter() + 0.05)
        return ms, rss, cpu, screen, labels
    finally:
        if c:
            c.block("kill-server", timeout=5)
            c.close()
        subprocess.run(["tmux", "-S", sock, "kill-server"], capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)


def player_line(d, label, runs=3, attend="./attend", load=lambda: ""):
    """The player line: one untimed run with the tokens checked, then the median and min of
    runs timed launches, and the largest peak RSS."""
    if not shutil.which("tmux"):
        print("first-heatmap-player %s: not measured, tmux is not installed" % label)
        return False
    want = dump_tokens(attend, d)
    _, _, _, screen, labels = one_run(attend, d, check=True)
    shown = STATUS.search("\n".join(screen))
    same = len(labels) >= 3 and labels == want[:len(labels)]
    ms, cpus, rss = [], [], 0.0
    for _ in range(runs):
        t, r, c, _, _ = one_run(attend, d)
        ms.append(t)
        cpus.append(c)
        rss = max(rss, r)
    print("first-heatmap-player %s threads=%d player_ms=%.0f min_ms=%.0f cpu_ms=%.0f peak_rss_mb=%.0f "
          "page=lesson20-p4 layer=%s heads=%s tokens=%s (the player in tmux 80x24, launch to the page's heatmap "
          "on screen; median of %d, warm, %s)"
          % (label, os.cpu_count(), statistics.median(ms), min(ms), statistics.median(cpus), rss, shown.group(1) if shown else "?",
             shown.group(4) if shown else "?",
             "same" if same else "DIFFERENT(%s vs %s)" % (" ".join(labels), " ".join(want)), runs, load()))
    return same


if __name__ == "__main__":
    import sys
    if len(sys.argv) != 2:
        print("usage: player_line.py MODEL_DIR")
        sys.exit(2)
    sys.exit(0 if player_line(sys.argv[1], os.path.basename(sys.argv[1].rstrip("/"))) else 1)
