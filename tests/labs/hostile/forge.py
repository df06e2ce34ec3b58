# Hostile: writes its own garbage to the harness's answer descriptor.
import os

os.write(3, b"case 0 ok 9\x00\xff garbage\n")


def attention(Q, K, V, mask=None):
    return Q, Q
