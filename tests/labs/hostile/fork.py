# Hostile: leaves a child behind that holds the pipes open and sleeps; then answers wrongly.
import os
import time


def attention(Q, K, V, mask=None):
    if os.fork() == 0:
        time.sleep(60)
        os._exit(0)
    return Q, Q
