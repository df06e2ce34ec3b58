# Hostile: imports a module that does not exist (the file cannot run: exit 2).
import no_such_module_here


def attention(Q, K, V, mask=None):
    return no_such_module_here.f(Q, K, V)
