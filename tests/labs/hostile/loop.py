# Hostile: never returns. The check must stop it at the time limit.
def attention(Q, K, V, mask=None):
    while True:
        pass
