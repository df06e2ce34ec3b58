#!/usr/bin/python3
"""torch_grad.py - an independent PyTorch reference for attend's trainer.

Reads a model written by tools/train_ref (attend's model format) and the examples of each
training step, rebuilds the transformer from the textbook definitions with torch (autograd
does the backward pass, torch.optim.AdamW the update, clip_grad_norm_ the clipping), replays
the steps and compares with attend's results:

  * the loss of every step            |torch - attend| <= 1e-4 * (1 + |torch|)
  * the gradient norm of every step   relative difference <= 1e-3
  * every gradient tensor of the last step and every final weight:
        max |torch - attend| <= 2e-4 * (1 + max |torch|)     (float32 accumulation order)

usage: torch_grad.py DIR CASE...   (prints one line per check and "N passed, N failed")
"""
import json
import math
import sys

import torch
import torch.nn.functional as F

torch.set_default_dtype(torch.float32)
torch.set_num_threads(1)


def load(path):
    with open(path) as f:
        return json.load(f)


class Ref:
    def __init__(self, model_json):
        self.c = model_json["config"]
        self.p = {}
        for name, value in model_json["weights"].items():
            if isinstance(value, dict):  # packed form: {"shape", "f32": base64 float32 LE}
                import base64, numpy
                value = numpy.frombuffer(base64.b64decode(value["f32"]), dtype="<f4").reshape(
                    value["shape"]).tolist()
            self.p[name] = torch.tensor(value, dtype=torch.float32, requires_grad=True)

    def w(self, name):
        return self.p[name]

    # -- building blocks, from their definitions --
    def norm(self, x, prefix):
        eps = self.c["norm_eps"]
        g = self.w(prefix + ".gain")
        if self.c["norm"] == "layernorm":
            return F.layer_norm(x, (x.shape[-1],), g, self.w(prefix + ".bias"), eps)
        return x / torch.sqrt((x * x).mean(-1, keepdim=True) + eps) * g

    def attention(self, xq, xkv, prefix, causal):
        H, dh = self.c["n_heads"], self.c["d_head"]
        nq, nk = xq.shape[0], xkv.shape[0]
        q = (xq @ self.w(prefix + ".wq")).view(nq, H, dh).transpose(0, 1)
        k = (xkv @ self.w(prefix + ".wk")).view(nk, H, dh).transpose(0, 1)
        v = (xkv @ self.w(prefix + ".wv")).view(nk, H, dh).transpose(0, 1)
        if self.c["pe"] == "rope" and xq is xkv:  # rotary: self-attention only
            q, k = self.rope(q), self.rope(k)
        scores = q @ k.transpose(1, 2) / math.sqrt(dh)
        if causal:
            future = torch.triu(torch.ones(nq, nk, dtype=torch.bool), diagonal=1)
            scores = scores.masked_fill(future, float("-inf"))
        out = torch.softmax(scores, dim=-1) @ v  # (H, nq, dh)
        return out.transpose(0, 1).reshape(nq, H * dh) @ self.w(prefix + ".wo")

    def rope(self, x):
        """Rotate each pair (x[2i], x[2i+1]) at position p by the angle p * base^(-2i/d_head)."""
        H, n, dh = x.shape
        i = torch.arange(dh // 2, dtype=torch.float64)
        theta = torch.pow(float(self.c["rope_base"]), -2.0 * i / dh)
        ang = torch.arange(n, dtype=torch.float64)[:, None] * theta[None, :]
        cos, sin = torch.cos(ang).float(), torch.sin(ang).float()
        x0, x1 = x[..., 0::2], x[..., 1::2]
        return torch.stack([x0 * cos - x1 * sin, x0 * sin + x1 * cos], dim=-1).reshape(H, n, dh)

    def ffn(self, x, prefix):
        kind = self.c["ffn"]
        if kind == "swiglu":
            h = F.silu(x @ self.w(prefix + ".w1")) * (x @ self.w(prefix + ".w3"))
            return h @ self.w(prefix + ".w2")
        u = x @ self.w(prefix + ".w1") + self.w(prefix + ".b1")
        h = torch.relu(u) if kind == "relu" else F.gelu(u, approximate="tanh")
        return h @ self.w(prefix + ".w2") + self.w(prefix + ".b2")

    def sublayer(self, x, prefix, normname, fn):
        if self.c["norm_placement"] == "pre":
            return x + fn(self.norm(x, prefix + normname))
        return self.norm(x + fn(x), prefix + normname)

    def embed(self, ids):
        d = self.c["d_model"]
        x = self.w("tok_embed")[ids]
        if self.c["scale_embed"]:
            x = x * math.sqrt(d)
        n = len(ids)
        if self.c["pe"] == "learned":
            x = x + self.w("pos_embed")[:n]
        elif self.c["pe"] == "sinusoidal":
            pos = torch.arange(n, dtype=torch.float64)[:, None]
            i = torch.arange(d)[None, :]
            angle = pos / torch.pow(10000.0, (2 * (i // 2)).double() / d)
            pe = torch.where(i % 2 == 0, torch.sin(angle), torch.cos(angle)).float()
            x = x + pe
        return x

    def stack(self, ids, st, causal, mem=None):
        x = self.embed(ids)
        for l in range(self.c["n_layers"]):
            p = "%s.%d." % (st, l)
            x = self.sublayer(x, p, "norm1", lambda a: self.attention(a, a, p + "attn", causal))
            if mem is not None:
                x = self.sublayer(x, p, "normc",
                                  lambda a: self.attention(a, mem, p + "cross", False))
            if self.c["ffn"] != "none":  # attention-only models have no FFN sublayer
                x = self.sublayer(x, p, "norm2", lambda a: self.ffn(a, p + "ffn"))
        if self.c["final_norm"]:
            x = self.norm(x, st + ".final")
        return x

    def logits(self, ex):
        if self.c["arch"] == "encoder-decoder":
            mem = self.stack(torch.tensor(ex["src"]), "enc", False)
            h = self.stack(torch.tensor(ex["dec"]), "dec", True, mem)
        elif self.c["arch"] == "encoder":  # masked LM: no causal mask, targets where hidden
            h = self.stack(torch.tensor(ex["src"]), "enc", False)
        else:
            h = self.stack(torch.tensor(ex["src"]), "dec", True)
        if self.c["tie_embed"]:
            return h @ self.w("tok_embed").t()
        return h @ self.w("lm_head")


def lr_at(o, step):
    """Linear warm-up over `warmup` steps, then cosine decay to lr * min_lr_ratio."""
    if step < o["warmup"]:
        return o["lr"] * (step + 1) / o["warmup"]
    rest = o["steps"] - o["warmup"]
    prog = min(1.0, (step - o["warmup"]) / (rest - 1)) if rest > 1 else 0.0
    return o["lr"] * (o["min_lr_ratio"] + (1 - o["min_lr_ratio"]) * 0.5 * (1 + math.cos(math.pi * prog)))


passed = failed = 0


def check(ok, msg):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
    print(("ok   " if ok else "FAIL ") + msg)


def run_case(d, case):
    model = load("%s/%s.model.json" % (d, case))
    run = load("%s/%s.run.json" % (d, case))
    o = run["opts"]
    ref = Ref(model)
    params = list(ref.p.items())
    decay = [t for n, t in params if t.dim() == 2 and t.shape[0] > 1 and
             (n != "pos_embed" or ref.c["pe"] == "learned")]
    no_decay = [t for n, t in params if not any(t is x for x in decay)]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": o["weight_decay"]},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=o["lr"], betas=(o["beta1"], o["beta2"]), eps=o["eps"])
    for step, st in enumerate(run["steps"]):
        opt.zero_grad()
        total, count = 0.0, 0
        for ex in st["examples"]:
            lg = ref.logits(ex)
            tg = torch.tensor(ex["targets"])
            total = total + F.cross_entropy(lg, tg, ignore_index=-1, reduction="sum")
            count += int((tg >= 0).sum())
        loss = total / count
        loss.backward()
        norm = float(torch.nn.utils.clip_grad_norm_([t for _, t in params], o["clip"]))
        for g in opt.param_groups:
            g["lr"] = lr_at(o, step)
        check(abs(float(loss) - st["loss"]) <= 1e-4 * (1 + abs(float(loss))),
              "%s step %d loss: torch %.7f attend %.7f" % (case, step + 1, float(loss), st["loss"]))
        check(abs(norm - st["grad_norm"]) <= 1e-3 * norm,
              "%s step %d gradient norm: torch %.6f attend %.6f" % (case, step + 1, norm,
                                                                   st["grad_norm"]))
        check(abs(lr_at(o, step) - st["lr"]) <= 1e-6 * o["lr"],
              "%s step %d learning rate %.6g" % (case, step + 1, st["lr"]))
        if step == len(run["steps"]) - 1:
            for name, t in params:
                want = (t.grad if t.grad is not None else torch.zeros_like(t)).flatten()
                got = torch.tensor(run["last_grad"][name])
                scale = 1 + float(want.abs().max())
                diff = float((want - got).abs().max())
                check(diff <= 2e-4 * scale,
                      "%s gradient %s: max diff %.2e (max |g| %.2e)" % (case, name, diff, scale - 1))
        opt.step()
    for name, t in params:
        want = t.detach().flatten()
        got = torch.tensor(run["final"][name])
        diff = float((want - got).abs().max())
        scale = 1 + float(want.abs().max())
        check(diff <= 2e-4 * scale, "%s final weight %s: max diff %.2e" % (case, name, diff))


def main():
    d = sys.argv[1]
    for case in sys.argv[2:]:
        run_case(d, case)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
