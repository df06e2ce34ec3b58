# Hostile: raises on every call, with a message spread over lines.
def attention(Q, K, V, mask=None):
    raise RuntimeError("first line\nsecond line\x1b[31m")
