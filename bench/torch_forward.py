"""The same decoder forward in PyTorch on the CPU (shapes of tools/bench_engine.c), for the ratio."""
import math, sys, time
try:
    import torch
except ImportError:
    print("  torch: not installed (apt-get install python3-torch) - no comparison")
    sys.exit(0)
torch.set_num_threads(2)
torch.manual_seed(0)
d, H, dh, L, F, V = 64, 4, 16, 2, 256, 300

class Block(torch.nn.Module):
    def __init__(s):
        super().__init__()
        s.n1 = torch.nn.LayerNorm(d); s.n2 = torch.nn.LayerNorm(d)
        s.q = torch.nn.Linear(d, H * dh, bias=False); s.k = torch.nn.Linear(d, H * dh, bias=False)
        s.v = torch.nn.Linear(d, H * dh, bias=False); s.o = torch.nn.Linear(H * dh, d, bias=False)
        s.f1 = torch.nn.Linear(d, F); s.f2 = torch.nn.Linear(F, d)
    def forward(s, x):
        n = x.shape[0]
        h = s.n1(x)
        q = s.q(h).view(n, H, dh).transpose(0, 1); k = s.k(h).view(n, H, dh).transpose(0, 1)
        v = s.v(h).view(n, H, dh).transpose(0, 1)
        sc = q @ k.transpose(1, 2) / math.sqrt(dh)
        sc = sc + torch.triu(torch.full((n, n), float("-inf")), 1)
        a = torch.softmax(sc, -1) @ v
        x = x + s.o(a.transpose(0, 1).reshape(n, H * dh))
        return x + s.f2(torch.nn.functional.gelu(s.f1(s.n2(x)), approximate="tanh"))

emb = torch.nn.Embedding(V, d); blocks = torch.nn.ModuleList([Block() for _ in range(L)])
fn = torch.nn.LayerNorm(d); head = torch.nn.Linear(d, V, bias=False)
def fwd(ids):
    n = ids.shape[0]
    pos = torch.arange(n).unsqueeze(1); i = torch.arange(d).unsqueeze(0)
    ang = pos / torch.pow(10000.0, (i // 2 * 2) / d)
    pe = torch.where(i % 2 == 0, torch.sin(ang), torch.cos(ang))
    x = emb(ids) + pe
    for b in blocks: x = b(x)
    return head(fn(x))
with torch.no_grad():
    for n in (16, 128, 256):
        ids = torch.tensor([2 + (i * 37) % 298 for i in range(n)])
        iters = 300 if n == 16 else 50
        for _ in range(20): fwd(ids)
        meds = []
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(iters): fwd(ids)
            meds.append((time.perf_counter() - t0) / iters * 1e6)
        meds.sort()
        print(f"  torch {n:3d} tokens: {meds[2]:10.1f} µs per forward")
