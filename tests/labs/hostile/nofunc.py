# Hostile: defines the wrong function.
def attend(Q, K, V):
    return Q
