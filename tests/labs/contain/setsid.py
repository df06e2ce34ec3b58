# Contained: a double fork with setsid, the daemon's way: the grandchild leaves the session and
# is orphaned, then sleeps.
import os
import time


def attention(Q, K, V, mask=None):
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            time.sleep(600)
        os._exit(0)
    os.wait()
    return Q, Q
