# Contained: a child that leaves the process group (setpgid(0, 0)) and sleeps.
import os
import time


def attention(Q, K, V, mask=None):
    if os.fork() == 0:
        os.setpgid(0, 0)
        time.sleep(600)
        os._exit(0)
    return Q, Q
