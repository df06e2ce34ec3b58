# Hostile: ends the whole process in the middle of the cases.
import os


def attention(Q, K, V, mask=None):
    os._exit(3)
