# Contained: starts a child that ignores SIGTERM, marks that it is running (a file beside
# it, named by the test), then loops forever: attend is interrupted while it runs.
import os
import signal
import time


def attention(Q, K, V, mask=None):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    if os.fork() == 0:
        os.setsid()
        time.sleep(600)
        os._exit(0)
    with open("stuck.started", "w") as f:
        f.write("1")
    while True:
        time.sleep(0.05)
