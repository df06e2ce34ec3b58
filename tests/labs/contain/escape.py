# Contained: tries to write outside its folder, to read attend's environment, to reach the
# network (the port the test listens on, in port.txt), and imports a helper beside it (which
# must leave no __pycache__ behind).
import os
import socket

import helper


def attention(Q, K, V, mask=None):
    wrote = []
    for p in ["/var/tmp/attend-escape-test", "/tmp/attend-escape-test"]:
        try:
            with open(p, "w") as f:
                f.write("x")
            wrote.append(p)
        except OSError:
            pass
    net = "no network"
    try:
        port = int(open("port.txt").read())  # the test listens there
        s = socket.create_connection(("127.0.0.1", port), 2)
        s.close()
        net = "network"
    except OSError as e:
        net = "no network (%s)" % e.errno
    raise RuntimeError("wrote=%s env=%s %s helper=%s"
                       % (",".join(wrote) or "nothing", ",".join(sorted(os.environ)), net,
                          helper.VALUE))
