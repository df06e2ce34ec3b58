# Contained: ignores SIGTERM itself and leaves a child that ignores it too, sleeping.
import os
import signal
import time


def attention(Q, K, V, mask=None):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if os.fork() == 0:
        time.sleep(600)
        os._exit(0)
    return Q, Q
