#!/usr/bin/python3
"""train_torch.py - the decoder of data/configs/decoder.json trained in PyTorch on the CPU with
the same shapes, batch and optimiser as `attend train` (pre-LN, GELU-tanh, learned PE,
AdamW, gradient clipping), on random token batches. Prints "WALL_TOK_S CPU_TOK_S TOKENS" over
STEPS timed steps after 10 untimed ones (bench/compare.py).
usage: train_torch.py [STEPS] [THREADS] [CONFIG]"""
import json
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 100
threads = int(sys.argv[2]) if len(sys.argv) > 2 else 2
torch.set_num_threads(threads)
torch.manual_seed(0)
cfgfile = json.load(open(sys.argv[3] if len(sys.argv) > 3 else "data/configs/decoder.json"))
c, t = cfgfile["config"], cfgfile["train"]
V = sum(1 for w in open(cfgfile["vocab"]) if w.strip() and not w.startswith("#"))
D, H, dh, L, FF, T = c["d_model"], c["n_heads"], c["d_head"], c["n_layers"], c["d_ff"], t["seq_len"]
B = t["batch"]


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.n1, self.n2 = nn.LayerNorm(D), nn.LayerNorm(D)
        self.qkv = nn.Linear(D, 3 * H * dh, bias=False)
        self.wo = nn.Linear(H * dh, D, bias=False)
        self.w1, self.w2 = nn.Linear(D, FF), nn.Linear(FF, D)
        self.register_buffer("mask", torch.triu(torch.ones(T, T, dtype=torch.bool), 1))

    def forward(self, x):
        b, n, _ = x.shape
        q, k, v = self.qkv(self.n1(x)).view(b, n, 3, H, dh).permute(2, 0, 3, 1, 4)
        s = (q @ k.transpose(-1, -2)) / dh ** 0.5
        a = torch.softmax(s.masked_fill(self.mask[:n, :n], float("-inf")), -1) @ v
        x = x + self.wo(a.transpose(1, 2).reshape(b, n, H * dh))
        return x + self.w2(F.gelu(self.w1(self.n2(x)), approximate="tanh"))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok, self.pos = nn.Embedding(V, D), nn.Embedding(c["max_len"], D)
        self.blocks = nn.ModuleList(Block() for _ in range(L))
        self.fin = nn.LayerNorm(D)
        self.head = nn.Linear(D, V, bias=False)

    def forward(self, ids):
        x = self.tok(ids) + self.pos(torch.arange(ids.shape[1]))
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.fin(x))


m = Model()
opt = torch.optim.AdamW(m.parameters(), lr=t["lr"], weight_decay=t["weight_decay"])
data = torch.randint(0, V, (steps + 10, B, T + 1))


def step(i):
    ids = data[i]
    loss = F.cross_entropy(m(ids[:, :-1]).reshape(-1, V), ids[:, 1:].reshape(-1))
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(m.parameters(), t["clip"])
    opt.step()


for i in range(10):
    step(i)
t0, c0 = time.perf_counter(), time.process_time()
for i in range(steps):
    step(10 + i)
el, cpu = time.perf_counter() - t0, time.process_time() - c0
print("%.1f %.1f %d" % (steps * B * T / el, steps * B * T / cpu, steps * B * T))
