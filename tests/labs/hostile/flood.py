# Hostile: prints without end. The check must stop it at the output limit.
def attention(Q, K, V, mask=None):
    while True:
        print("x" * 1000)
