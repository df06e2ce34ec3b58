#!/usr/bin/python3
"""lens_check.py - `attend dump --lens / --attribute / --patch / --rollout` against an
independent float64 PyTorch forward written here, on the course's models (data/*.json) and on
random Hugging Face GPT-2, LLaMA and Qwen2 directories written by hf_models.py's writers.

The forward below is one pre-norm transformer with the choices of each family (learned
positions or RoPE, half or interleaved; LayerNorm or RMSNorm; GELU, ReLU, SwiGLU or no FFN;
grouped K/V heads; biases where the files have them) that keeps r_0..r_L, every head's
weights·V, every FFN's output and every head's weights, and can put one head's or FFN's output
back from another run. From it, by the definitions of docs/dump-format.md:
  * lens: softmax(W_U · final_norm(r_l)) for every l and position: attend's top K ids are the
    reference's (up to ties), probabilities to 1e-4; row L is `dump --next`'s distribution;
  * attribution: every part to 1e-4 (of the largest part, at least 1) and the parts' sum to the
    reference logit to 1e-4 (likewise), and the dump's own sum to its logit;
  * patching: every head's and FFN's fraction restored to 1e-4;
  * rollout: every layer's matrix to 1e-5;
and the refusals: an encoder-decoder, a post-norm model for attribution, different token
counts for patching, a TOKEN of more than one token. Prints "N passed, N failed".
"""
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hf_models  # noqa: E402
import hf_ref  # noqa: E402
import numpy_ref  # noqa: E402

ATTEND = os.environ.get("ATTEND", "./attend")
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
        print("ok - " + what)
    else:
        failed += 1
        print("FAIL - " + what)


def run(args):
    p = subprocess.run([ATTEND, "dump"] + args, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


# ------------------------------------------------------------------ the reference forward

def T(a):
    return torch.as_tensor(np.asarray(a, dtype=np.float64))


def norm(x, w, kind, eps):
    g, b = w
    if kind == "rms":
        return g * x / torch.sqrt((x * x).mean(-1, keepdim=True) + eps)
    mu = x.mean(-1, keepdim=True)
    var = ((x - mu) ** 2).mean(-1, keepdim=True)
    return g * (x - mu) / torch.sqrt(var + eps) + (b if b is not None else 0.0)


def rope(x, M):
    n, dh = x.shape
    if M["rope"] == "half":
        freqs = torch.outer(torch.arange(n, dtype=torch.float64), M["inv_freq"])
        emb = torch.cat((freqs, freqs), -1)
        return x * emb.cos() + hf_ref.rotate_half(x) * emb.sin()
    theta = M["rope_base"] ** (-2.0 * torch.arange(dh // 2, dtype=torch.float64) / dh)
    ang = torch.outer(torch.arange(n, dtype=torch.float64), theta)
    c, s = ang.cos(), ang.sin()
    x0, x1 = x[:, 0::2], x[:, 1::2]
    out = torch.empty_like(x)
    out[:, 0::2] = x0 * c - x1 * s
    out[:, 1::2] = x0 * s + x1 * c
    return out


def act(x, kind):
    if kind == "relu":
        return torch.relu(x)
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def forward(M, ids, patch=None):
    """patch: (layer, head or -1, tensor) put in place of that head's weights·V or FFN output."""
    n, d, H, dh = len(ids), M["d"], M["H"], M["dh"]
    group = H // M["Hkv"]
    x = M["E"][ids] * (math.sqrt(d) if M["scale_embed"] else 1.0)
    out = {"embed": x, "pos": None, "heads": [], "ffn": [], "weights": []}
    if M["P"] is not None:
        out["pos"] = M["P"][:n]
        x = x + out["pos"]
    r = [x]
    for l, Ly in enumerate(M["layers"]):
        a = norm(x, Ly["n1"], M["norm"], M["eps"])
        q, k, v = a @ Ly["Wq"], a @ Ly["Wk"], a @ Ly["Wv"]
        if Ly["bq"] is not None:
            q, k, v = q + Ly["bq"], k + Ly["bk"], v + Ly["bv"]
        outs, ws = [], []
        for h in range(H):
            kv = h // group
            qh, kh, vh = q[:, h * dh:(h + 1) * dh], k[:, kv * dh:(kv + 1) * dh], v[:, kv * dh:(kv + 1) * dh]
            if Ly.get("qn") is not None:
                qh, kh = norm(qh, (Ly["qn"], None), "rms", M["eps"]), norm(kh, (Ly["kn"], None), "rms", M["eps"])
            if M["rope"]:
                qh, kh = rope(qh, M), rope(kh, M)
            s = qh @ kh.T / math.sqrt(dh)
            if M["causal"]:
                s = s.masked_fill(torch.triu(torch.ones(n, n, dtype=torch.bool), 1), -math.inf)
            w = torch.softmax(s, -1)
            o = w @ vh
            if patch and patch[0] == l and patch[1] == h:
                o = patch[2]
            outs.append(o)
            ws.append(w)
        out["heads"].append(outs)
        out["weights"].append(ws)
        ao = torch.cat(outs, 1) @ Ly["Wo"] + (Ly["bo"] if Ly["bo"] is not None else 0.0)
        x = x + ao
        if Ly["ffn"] != "none":
            m = norm(x, Ly["n2"], M["norm"], M["eps"])
            if Ly["ffn"] == "swiglu":
                hid = torch.nn.functional.silu(m @ Ly["W1"]) * (m @ Ly["W3"])
            else:
                hid = act(m @ Ly["W1"] + Ly["b1"], Ly["ffn"])
            fo = hid @ Ly["W2"] + (Ly["b2"] if Ly["b2"] is not None else 0.0)
            if patch and patch[0] == l and patch[1] == -1:
                fo = patch[2]
            out["ffn"].append(fo)
            x = x + fo
        else:
            out["ffn"].append(None)
        r.append(x)
    out["r"] = r
    out["logits"] = final(M, x) @ M["WU"]
    return out


def final(M, x):
    return norm(x, M["final"], M["norm"], M["eps"]) if M["final"] else x


# ------------------------------------------------------------------ the models, as one dict

def attend_model(path):
    cfg, vocab, W = numpy_ref.load_model(path)
    st = "enc" if cfg["arch"] == "encoder" else "dec"
    d, H, dh, V = cfg["d_model"], cfg["n_heads"], cfg["d_head"], cfg["vocab_size"]
    w = lambda k, r, c: T(numpy_ref.weight(W, k, (r, c)))
    ln = cfg["norm"] == "layernorm"
    nrm = lambda p: (w(p + ".gain", 1, d), w(p + ".bias", 1, d) if ln else None)
    assert cfg["pe"] in ("learned", "rope", "none") and cfg.get("norm_placement", "pre") == "pre"
    M = {"d": d, "H": H, "dh": dh, "Hkv": H, "E": w("tok_embed", V, d),
         "P": w("pos_embed", cfg["max_len"], d) if cfg["pe"] == "learned" else None,
         "scale_embed": cfg["scale_embed"], "rope": "pairs" if cfg["pe"] == "rope" else None,
         "rope_base": cfg["rope_base"], "norm": "ln" if ln else "rms", "eps": np.float32(cfg["norm_eps"]).item(),
         "causal": cfg["arch"] != "encoder", "layers": [],
         "final": nrm(st + ".final") if cfg["final_norm"] else None}
    M["WU"] = M["E"].T if cfg["tie_embed"] else w("lm_head", d, V)
    F = cfg.get("d_ff", 0)
    for l in range(cfg["n_layers"]):
        p = "%s.%d." % (st, l)
        Ly = {"n1": nrm(p + "norm1"), "Wq": w(p + "attn.wq", d, H * dh), "Wk": w(p + "attn.wk", d, H * dh),
              "Wv": w(p + "attn.wv", d, H * dh), "Wo": w(p + "attn.wo", H * dh, d), "bq": None, "bo": None,
              "ffn": cfg["ffn"]}
        if cfg["ffn"] != "none":
            Ly.update({"n2": nrm(p + "norm2"), "W1": w(p + "ffn.w1", d, F), "W2": w(p + "ffn.w2", F, d)})
            if cfg["ffn"] == "swiglu":
                Ly.update({"W3": w(p + "ffn.w3", d, F), "b2": None})
            else:
                Ly.update({"b1": w(p + "ffn.b1", 1, F), "b2": w(p + "ffn.b2", 1, d)})
        M["layers"].append(Ly)
    return M, vocab


def gpt2_model(W, cfg):
    d, H, eps = cfg["n_embd"], cfg["n_head"], cfg["layer_norm_epsilon"]
    M = {"d": d, "H": H, "dh": d // H, "Hkv": H, "E": W["wte.weight"], "P": W["wpe.weight"],
         "scale_embed": False, "rope": None, "norm": "ln", "eps": eps, "causal": True, "layers": [],
         "final": (W["ln_f.weight"], W["ln_f.bias"]), "WU": W["wte.weight"].T}
    for l in range(cfg["n_layer"]):
        P = lambda k: W["h.%d.%s" % (l, k)]
        ca, cb = P("attn.c_attn.weight"), P("attn.c_attn.bias")
        M["layers"].append({
            "n1": (P("ln_1.weight"), P("ln_1.bias")), "Wq": ca[:, :d], "Wk": ca[:, d:2 * d],
            "Wv": ca[:, 2 * d:], "bq": cb[:d], "bk": cb[d:2 * d], "bv": cb[2 * d:],
            "Wo": P("attn.c_proj.weight"), "bo": P("attn.c_proj.bias"), "ffn": "gelu",
            "n2": (P("ln_2.weight"), P("ln_2.bias")), "W1": P("mlp.c_fc.weight"), "b1": P("mlp.c_fc.bias"),
            "W2": P("mlp.c_proj.weight"), "b2": P("mlp.c_proj.bias")})
    return M


def llama_model(W, cfg):
    d, H = cfg["hidden_size"], cfg["num_attention_heads"]
    Hkv, dh = cfg.get("num_key_value_heads", H), cfg.get("head_dim") or d // H
    bias = cfg["model_type"] == "qwen2" or cfg.get("attention_bias")
    E = W["model.embed_tokens.weight"]
    M = {"d": d, "H": H, "dh": dh, "Hkv": Hkv, "E": E, "P": None, "scale_embed": False,
         "rope": "half", "inv_freq": hf_ref.rope_inv_freq(cfg, dh), "norm": "rms",
         "eps": cfg["rms_norm_eps"], "causal": True, "layers": [], "final": (W["model.norm.weight"], None),
         "WU": (W["lm_head.weight"] if "lm_head.weight" in W else E).T}
    for l in range(cfg["num_hidden_layers"]):
        P = lambda k: W["model.layers.%d.%s" % (l, k)]
        A = "self_attn."
        Ly = {"n1": (P("input_layernorm.weight"), None), "Wq": P(A + "q_proj.weight").T,
              "Wk": P(A + "k_proj.weight").T, "Wv": P(A + "v_proj.weight").T, "Wo": P(A + "o_proj.weight").T,
              "bq": P(A + "q_proj.bias") if bias else None, "bo": None, "ffn": "swiglu",
              "n2": (P("post_attention_layernorm.weight"), None), "W1": P("mlp.gate_proj.weight").T,
              "W3": P("mlp.up_proj.weight").T, "W2": P("mlp.down_proj.weight").T, "b2": None}
        if bias:
            Ly["bk"], Ly["bv"] = P(A + "k_proj.bias"), P(A + "v_proj.bias")
        if cfg["model_type"] == "qwen3":
            Ly["qn"], Ly["kn"] = P(A + "q_norm.weight"), P(A + "k_norm.weight")
        M["layers"].append(Ly)
    return M


# ------------------------------------------------------------------ the checks

def lens_check(M, path, sent, what, k=5):
    rc, out, err = run(["--model", path, "--sentence", sent, "--lens", "--top", str(k), "--format", "json"])
    check(rc == 0, "%s: --lens exits 0%s" % (what, "" if rc == 0 else ": " + err.strip()[:200]))
    if rc:
        return None
    got = json.loads(out)
    ids = got["token_ids"]
    ref = forward(M, ids)
    L, n = len(M["layers"]), len(ids)
    lens = got["lens"]
    ok = len(lens) == L + 1 and all(len(row) == n for row in lens)
    worst, bad = 0.0, ""
    for l in range(L + 1) if ok else []:
        p = torch.softmax(final(M, ref["r"][l]) @ M["WU"], -1)
        for i in range(n):
            top = lens[l][i]["top"]
            kth = torch.sort(p[i], descending=True).values[k - 1].item()
            for j, (tid, pr) in enumerate(top):
                e = abs(pr - p[i, tid].item())
                worst = max(worst, e)
                if p[i, tid].item() < kth - 1e-6 or (j and pr > top[j - 1][1]):
                    bad = "r%d position %d: id %d is not among the reference's top %d" % (l, i, tid, k)
    check(ok and not bad and worst <= 1e-4, "%s: lens rows r0..r%d, top %d of %d positions as the "
          "reference (max |dp| %.1e)%s" % (what, L, k, n, worst, (" " + bad) if bad else ""))
    rc, nx, _ = run(["--model", path, "--sentence", sent, "--next", str(k), "--format", "json"])
    nxt = [[e["id"], e["p"]] for e in json.loads(nx)["next"]] if rc == 0 else None
    check(nxt == lens[L][n - 1]["top"], "%s: the lens's row r%d at the last position is the model's "
          "own output (dump --next %d), exactly" % (what, L, k))
    return ids, ref


def ref_parts(M, ref, ids, tok, pos):
    """The attribution by its definition, from the reference's own parts."""
    d, dh = M["d"], M["dh"]
    wu = M["WU"][:, tok]
    x = ref["r"][-1][pos]
    parts = [("embed", ref["embed"][pos])]
    if ref["pos"] is not None:
        parts.append(("pos", ref["pos"][pos]))
    for l, Ly in enumerate(M["layers"]):
        for h in range(M["H"]):
            parts.append(("L%d.h%d" % (l, h), ref["heads"][l][h][pos] @ Ly["Wo"][h * dh:(h + 1) * dh]))
        if Ly["bo"] is not None:
            parts.append(("L%d.attn_bias" % l, Ly["bo"]))
        if Ly["ffn"] != "none":
            parts.append(("L%d.mlp" % l, ref["ffn"][l][pos]))
    if M["final"]:
        g, b = M["final"]
        centre = M["norm"] == "ln"
        mu = x.mean() if centre else 0.0
        scale = torch.sqrt(((x - mu) ** 2).mean() + M["eps"])
        val = {nm: ((g * wu) @ (c - (c.mean() if centre else 0.0)) / scale).item() for nm, c in parts}
        val["final_bias"] = (b @ wu).item() if b is not None else 0.0
    else:
        val = {nm: (wu @ c).item() for nm, c in parts}
        val["final_bias"] = 0.0
    return val


def attribute_check(M, path, sent, ids, ref, token, what, pos=None):
    args = ["--model", path, "--sentence", sent, "--attribute", str(token), "--format", "json"]
    if pos is not None:
        args += ["--position", str(pos)]
    rc, out, err = run(args)
    check(rc == 0, "%s: --attribute %s exits 0%s" % (what, token, "" if rc == 0 else ": " + err.strip()[:200]))
    if rc:
        return
    a = json.loads(out)["attribution"]
    pos = len(ids) - 1 if pos is None else pos
    tok = a["token_id"]
    want = ref_parts(M, ref, ids, tok, pos)
    got = {p["name"]: p["value"] for p in a["parts"]}
    logit = ref["logits"][pos, tok].item()
    scale = max(1.0, max(abs(v) for v in want.values()))
    names_ok = list(got) == list(want)
    worst = max((abs(got[k] - want[k]) for k in want if k in got), default=0.0)
    check(names_ok and worst <= 1e-4 * scale, "%s: %d attribution parts of %r at %d as the reference "
          "(max |d| %.1e, largest part %.2f)%s" % (what, len(want), a["token"], pos, worst, scale,
                                                   "" if names_ok else " names %s vs %s" % (list(got)[:6], list(want)[:6])))
    looks = [(q["weight"], q["key"], q["name"]) for q in a["parts"] if "weight" in q]
    wl = []
    for w, k, nm in looks:
        l, h = (int(x) for x in nm[1:].split(".h"))
        row = ref["weights"][l][h][pos]
        wl.append(abs(w - row.max().item()) <= 1e-5 and abs(row[k].item() - row.max().item()) <= 1e-6)
    check(len(looks) == len(M["layers"]) * M["H"] and all(wl), "%s: beside each head's part, its peak "
          "weight from position %d and its key, as the reference's weights" % (what, pos))
    s = sum(got.values())
    check(abs(s - logit) <= 1e-4 * scale and abs(sum(want.values()) - logit) <= 1e-9 * scale and
          abs(a["logit"] - logit) <= 1e-4 * scale and abs(a["sum"] - a["logit"]) <= 1e-4 * scale,
          "%s: the parts sum to the logit %.5f (attend's sum %.5f, its logit %.5f)" % (what, logit, s, a["logit"]))


def patch_check(M, path, clean, corrupts, ids, ref, what):
    """The first sentence of corrupts with as many tokens as clean is the corrupted run."""
    for c in corrupts:
        rc, out, _ = run(["--model", path, "--sentence", c, "--rollout", "--format", "json"])
        cids = json.loads(out)["token_ids"] if rc == 0 else []
        if len(cids) == len(ids) and cids != ids:
            break
    else:
        check(False, "%s: no corrupted sentence with %d tokens" % (what, len(ids)))
        return
    cref = forward(M, cids)
    diff = ref["logits"][-1] - cref["logits"][-1]
    tok = int(torch.argmax(diff.abs()).item())  # the token the two runs disagree on most
    rc, out, err = run(["--model", path, "--sentence", clean, "--patch", c, "--metric", str(tok),
                        "--format", "json"])
    check(rc == 0, "%s: --patch exits 0%s" % (what, "" if rc == 0 else ": " + err.strip()[:200]))
    if rc:
        return
    p = json.loads(out)["patch"]
    lc, lx = ref["logits"][-1, tok].item(), cref["logits"][-1, tok].item()
    worst, names = 0.0, []
    for part in p["parts"]:
        l, h = part["layer"], part["head"]
        src = ref["heads"][l][h] if h >= 0 else ref["ffn"][l]
        lp = forward(M, cids, (l, h, src))["logits"][-1, tok].item()
        worst = max(worst, abs(part["fraction"] - (lp - lx) / (lc - lx)))
        names.append(part["name"])
    L, H = len(M["layers"]), M["H"]
    want = [n for l in range(L) for n in ["L%d.h%d" % (l, h) for h in range(H)] +
            (["L%d.mlp" % l] if M["layers"][l]["ffn"] != "none" else [])]
    check(names == want and worst <= 1e-4 and abs(p["clean"] - lc) <= 1e-4 * max(1, abs(lc)) and
          abs(p["corrupted"] - lx) <= 1e-4 * max(1, abs(lx)),
          "%s: patching %r into %r: %d fractions of token %d's logit difference (%.3f) as the "
          "reference (max |d| %.1e)" % (what, clean, c, len(names), tok, lc - lx, worst))


def rollout_check(M, path, sent, ids, ref, what):
    rc, out, _ = run(["--model", path, "--sentence", sent, "--rollout", "--format", "json"])
    got = json.loads(out)["rollout"] if rc == 0 else []
    n = len(ids)
    R, worst = None, 0.0
    for l, ws in enumerate(ref["weights"]):
        A = sum(ws) / len(ws) + torch.eye(n, dtype=torch.float64)
        A = A / A.sum(-1, keepdim=True)
        R = A if R is None else A @ R
        if l < len(got):
            worst = max(worst, (torch.tensor(got[l], dtype=torch.float64) - R).abs().max().item())
    check(len(got) == len(ref["weights"]) and worst <= 1e-5, "%s: rollout through %d layers as the "
          "reference (max |d| %.1e)" % (what, len(got), worst))


def model_checks(M, path, clean, corrupts, what, word=None):
    r = lens_check(M, path, clean, what)
    if not r:
        return
    ids, ref = r
    top = int(torch.argmax(ref["logits"][-1]).item())
    attribute_check(M, path, clean, ids, ref, top, what)
    attribute_check(M, path, clean, ids, ref, (top * 7 + 3) % M["E"].shape[0], what, pos=len(ids) // 2)
    if word:
        attribute_check(M, path, clean, ids, ref, word, what)
    patch_check(M, path, clean, corrupts, ids, ref, what)
    rollout_check(M, path, clean, ids, ref, what)


def circuits_check(M, path, vocab, what):
    """attend heads --circuits against the definitions of circuits.h, from the weights; vocab
    None: the copying score is not recomputed (its pool is attend's own vocabulary words)."""
    p = subprocess.run([ATTEND, "heads", "--model", path, "--circuits", "--format", "json"],
                       capture_output=True, text=True)
    check(p.returncode == 0, "%s: heads --circuits exits 0 %s" % (what, p.stderr.strip()[:200]))
    if p.returncode:
        return None
    got = json.loads(p.stdout)["circuits"]
    H, dh = M["H"], M["dh"]
    group = H // M["Hkv"]
    nrm = lambda x, w: norm(x, w, M["norm"], M["eps"])
    worst, fields, worst_eig = 0.0, set(), 0.0

    def qkvo(Ly, h):
        sl, kv = slice(h * dh, (h + 1) * dh), slice((h // group) * dh, (h // group + 1) * dh)
        return Ly["Wq"][:, sl], Ly["Wk"][:, kv], Ly["Wv"][:, kv], Ly["Wo"][sl]

    for l, Ly in enumerate(M["layers"]):
        for h in range(H):
            Q, K, V, O = qkvo(Ly, h)
            g = got[l * H + h]
            if vocab is not None:
                pool = [i for i, w in enumerate(vocab) if not (len(w) >= 2 and w[0] == "<" and w[-1] == ">")]
                assert len(pool) <= 256
                logits = final(M, nrm(M["E"][pool], Ly["n1"]) @ V @ O) @ M["WU"][:, pool]
                copy = (logits.argmax(-1) == torch.arange(len(pool))).double().mean().item()
                worst = max(worst, abs(g["copy"] - copy))
                fields.add("copy")
                # Elhage's copying score from the whole (pool x pool) OV circuit's eigenvalues
                # (numpy.linalg.eigvals): the norms' gains, LayerNorm's centering, no scale
                d = M["d"]
                C = torch.eye(d, dtype=torch.float64) - (1.0 / d if M["norm"] == "ln" else 0.0)
                g1 = Ly["n1"][0].reshape(-1)
                gf = M["final"][0].reshape(-1) if M["final"] else torch.ones(d, dtype=torch.float64)
                Cf = C if M["final"] else torch.eye(d, dtype=torch.float64)
                ov = M["E"][pool] @ C @ torch.diag(g1) @ V @ O @ Cf @ torch.diag(gf) @ M["WU"][:, pool]
                lam = np.linalg.eigvals(ov.numpy())
                eig = lam.sum().real / np.abs(lam).sum()
                ce = abs(g["copying"] - eig)
                worst_eig = max(worst_eig, ce)
            if M["P"] is not None:
                P = min(64, M["P"].shape[0])
                pp = nrm(M["P"][:P], Ly["n1"])
                sc = (pp @ Q) @ (pp @ K).T
                sc = sc.masked_fill(torch.triu(torch.ones(P, P, dtype=torch.bool), 1), -math.inf)
                prev = (sc[1:].argmax(-1) == torch.arange(P - 1)).double().mean().item()
                worst = max(worst, abs(g["prev"] - prev))
                fields.add("prev")
            elif g["prev"] is not None:
                worst = float("inf")
            if l:
                QK = Q @ K.T
                for gg in range(H):
                    _, _, Vg, Og = qkvo(M["layers"][l - 1], gg)
                    OV = Vg @ Og
                    kc = (torch.linalg.norm(QK @ OV.T) / (torch.linalg.norm(QK) * torch.linalg.norm(OV))).item()
                    worst = max(worst, abs(g["kcomp"][gg] - kc))
                fields.add("K-composition")
    check(worst <= 1e-6, "%s: every head's %s scores as the reference (max |d| %.1e)" % (
        what, ", ".join(sorted(fields)), worst))
    if vocab is not None:
        check(worst_eig <= 1e-4, "%s: every head's copying score (eigenvalues of the OV circuit) as "
              "numpy.linalg.eigvals' on the whole circuit (max |d| %.1e)" % (what, worst_eig))
    return got


def eigen_check():
    """eigen.c's eigenvalues of random matrices (test_eigen --dump) as numpy.linalg.eigvals'."""
    exe = os.path.join(os.environ.get("BUILD", "build"), "tests", "test_eigen")
    p = subprocess.run([exe, "--dump"], capture_output=True, text=True)
    check(p.returncode == 0, "test_eigen --dump runs")
    if p.returncode:
        return
    worst, sizes = 0.0, []
    for m in json.loads(p.stdout)["matrices"]:
        n = m["n"]
        ev = np.linalg.eigvals(np.array(m["a"]).reshape(n, n))
        got = np.array(m["re"]) + 1j * np.array(m["im"])
        e = max(max(np.abs(ev - g).min() for g in got), max(np.abs(got - x).min() for x in ev))
        worst = max(worst, e if m["rc"] == 0 else float("inf"))
        sizes.append(n)
    check(worst < 1e-9, "eigen.c on random matrices of sizes %s: every eigenvalue as numpy.linalg.eigvals' "
          "(max |d| %.1e)" % (",".join(map(str, sizes)), worst))


def lesson_check():
    """Lesson 22's first page (plain mode) states the numbers the dump gives: the head that looks
    hardest from the last row, its push (its attribution part) and its knock-out effect."""
    import re
    sent = "lion key moon cat lion key moon"
    state = tempfile.mkdtemp(prefix="attend-lens-state-")
    env = dict(os.environ, XDG_STATE_HOME=state, HOME=state)
    p = subprocess.run([ATTEND, "--plain", "--lesson", "what-a-head-does"], input="q\n",
                       capture_output=True, text=True, timeout=600, env=env)
    shutil.rmtree(state, ignore_errors=True)
    m = re.search(r'top guess is "(\w+)"\. From that row, L(\d)\.h(\d) looks hardest: (\d+\.\d+) on "(\w+)"\. '
                  r"Its own push on the guess's logit is (-?\d+\.\d+); knocked out, the logit moves by (-?\d+\.\d+)",
                  p.stdout)
    check(m is not None, "lesson 22 page 1 reads in plain mode: %s" % p.stdout[:200].replace("\n", " "))
    if not m:
        return
    nxt, l, h, w, key, push, knock = m.groups()
    rc, out, _ = run(["--model", "data/induction.json", "--sentence", sent, "--attribute", nxt, "--format", "json"])
    a = json.loads(out)["attribution"]
    part = {q["name"]: q["value"] for q in a["parts"]}["L%s.h%s" % (l, h)]
    full = json.loads(run(["--model", "data/induction.json", "--sentence", sent, "--format", "json"])[1])
    n = len(full["tokens"])
    ws = [full["layers"][int(ll)]["heads"][int(hh)]["weights"][n - 1] for ll in range(2) for hh in range(2)]
    peak = max(max(r) for r in ws)
    ko = subprocess.run([ATTEND, "dump", "--model", "data/induction.json", "--sentence", sent, "--ablate",
                         "%s.%s" % (l, h), "--attribute", nxt, "--format", "json"], capture_output=True, text=True)
    kl = json.loads(ko.stdout)["attribution"]["logit"]
    check(abs(float(push) - part) <= 0.005 and abs(float(w) - peak) <= 0.005 and
          abs(float(knock) - (a["logit"] - kl)) <= 0.005,
          "lesson 22 page 1: L%s.h%s peak %s (dump %.3f), push %s (--attribute %.3f), knock-out %s "
          "(--ablate %.3f)" % (l, h, w, peak, push, part, knock, a["logit"] - kl))


def lesson_patch_check():
    """Lesson 22's patching page states dump --patch's numbers."""
    import re
    state = tempfile.mkdtemp(prefix="attend-lens-state-")
    env = dict(os.environ, XDG_STATE_HOME=state, HOME=state)
    p = subprocess.run([ATTEND, "--plain", "--lesson", "what-a-head-does", "--page", "2"], input="q\n",
                       capture_output=True, text=True, timeout=600, env=env)
    shutil.rmtree(state, ignore_errors=True)
    m = re.search(r'the logit of "(\w+)" falls from (-?\d+\.\d+) to (-?\d+\.\d+)\. .*?: L(\d)\.h(\d) puts back '
                  r'(-?\d+\.\d+) of the difference', p.stdout)
    check(m is not None, "lesson 22 page 2 reads in plain mode: %s" % p.stdout[:300].replace("\n", " "))
    if not m:
        return
    tok, clean, bad, l, h, frac = m.groups()
    rc, out, err = run(["--model", "data/induction.json", "--sentence", "lion key moon cat lion key moon",
                        "--patch", "lion key moon tree lion key moon", "--metric", tok, "--format", "json"])
    pp = json.loads(out)["patch"] if rc == 0 else {"parts": [{"fraction": 0, "name": ""}]}
    best = max(pp["parts"], key=lambda q: q["fraction"])
    check(rc == 0 and best["name"] == "L%s.h%s" % (l, h) and abs(best["fraction"] - float(frac)) <= 0.005 and
          abs(pp["clean"] - float(clean)) <= 0.005 and abs(pp["corrupted"] - float(bad)) <= 0.005,
          "lesson 22 page 2: %s restores %s (dump --patch %s %.3f), %s -> %s" % (
              "L%s.h%s" % (l, h), frac, best["name"], best["fraction"], clean, bad))


def effect_check(M, model_args, page, sent, what):
    """The effect widget (lesson 22, plain mode) at every position (n/N) against the reference:
    the top guess and its loss, and per head its peak weight and key, its push (the reference's
    attribution part) and the loss with its weights.V zeroed (the reference's patch hook)."""
    import re
    state = tempfile.mkdtemp(prefix="attend-lens-state-")
    env = dict(os.environ, XDG_STATE_HOME=state, HOME=state)
    rc, out, _ = run(model_args + ["--sentence", sent, "--format", "json"])
    ids = json.loads(out)["token_ids"] if rc == 0 else []
    n = len(ids)
    keys = "N\n" * (n - 1) + "q\n"
    p = subprocess.run([ATTEND, "--plain"] + (model_args if model_args[1] != "data/induction.json" else []) +
                       ["--lesson", "what-a-head-does", "--page", str(page)], input=keys,
                       capture_output=True, text=True, timeout=600, env=env)
    shutil.rmtree(state, ignore_errors=True)
    blocks = re.findall(r'Attention vs effect after "(.*?)" \(position (\d+)\): the top guess is "(.*?)", '
                        r'loss (-?[\d.]+).*?\n(?:Layer \d+\'s heads\.\n)?Each head.*?its weight on ".*?" \(position '
                        r'(\d+).*?\n((?:L\d+\.h\d+: .*\n)+)', p.stdout)
    check(len(blocks) == n, "%s: the effect widget reads at each of the %d positions in plain mode (%d read)"
          % (what, n, len(blocks)))
    ref = forward(M, ids)
    worst, bad = 0.0, ""
    for _, pos, _, loss, ckey, rows in blocks:
        i, ck = int(pos), int(ckey)
        earlier = [j for j in range(i) if ids[j] == ids[i]]
        if earlier and ck != earlier[-1] + 1:
            bad = "position %d: the case key is %d, not the token after the earlier occurrence %d" % (
                i, ck, earlier[-1] + 1)
        lp = torch.log_softmax(ref["logits"][i], -1)
        tok = int(torch.argmax(lp).item())
        base = -lp[tok].item()
        worst = max(worst, abs(base - float(loss)))
        parts = ref_parts(M, ref, ids, tok, i)
        for m in re.finditer(r'L(\d+)\.h(\d+): looks at ".*?" ([\d.]+); on ".*?" ([\d.]+); push ([-+][\d.]+); '
                             r'knocked out ([-+][\d.]+)\.', rows):
            l, h, w, on, push, dl = (int(m.group(1)), int(m.group(2)), float(m.group(3)), float(m.group(4)),
                                     float(m.group(5)), float(m.group(6)))
            worst = max(worst, abs(ref["weights"][l][h][i][ck].item() - on))
            if abs(ref["weights"][l][h][i][ck].item() - on) > 0.0055:
                bad = "position %d L%d.h%d: weight on key %d %.3f (reference %.3f)" % (
                    i, l, h, ck, on, ref["weights"][l][h][i][ck].item())
            dh = M["dh"]
            zero = torch.zeros(n, dh, dtype=torch.float64)
            ko = forward(M, ids, patch=(l, h, zero))
            want = -torch.log_softmax(ko["logits"][i], -1)[tok].item() - base
            peak = ref["weights"][l][h][i].max().item()
            e = max(abs(want - dl), abs(peak - w), abs(parts["L%d.h%d" % (l, h)] - push))
            if e > 0.0055:
                bad = "position %d L%d.h%d: loss change %+.3f (reference %+.3f), weight %.3f (%.3f), push %+.3f (%+.3f)" % (
                    i, l, h, dl, want, w, peak, push, parts["L%d.h%d" % (l, h)])
            worst = max(worst, e)
    check(blocks and not bad, "%s: every head's peak weight, weight on the row's case key, push and loss change "
          "knocked out, at every position, "
          "as the reference's (to the 2 decimals shown; max diff %.4f)%s" % (what, worst, (" " + bad) if bad else ""))


def opened_check(d, what, tmp):
    """Lessons 22 and 23 on an opened model (attend --model d): check-lessons --model walks
    their every state on it with no problem, and plain mode reads each switching page, its
    induction head and copy losses those of attend heads on the same probes."""
    import re
    course = os.path.join(tmp, "course-" + what)
    os.makedirs(course, exist_ok=True)
    for f in os.listdir("lessons"):
        if f[:3] in ("21-", "22-", "23-"):
            with open(os.path.join("lessons", f)) as a:
                lesson = json.load(a)
            if f[:3] == "21-":
                lesson["requires"] = []  # the course's first here
            with open(os.path.join(course, f), "w") as b:
                json.dump(lesson, b, indent=2)
    p = subprocess.run([ATTEND, "check-lessons", "--model", d, "--samples", "3", course],
                       capture_output=True, text=True, timeout=900)
    check(p.returncode == 0 and "3 lessons," in p.stdout and " 0 problems" in p.stdout,
          "%s: check-lessons --model walks lessons 21-23 on it, every state true: %s" % (
              what, (p.stdout + p.stderr).strip()[-300:]))
    hj = subprocess.run([ATTEND, "heads", "--model", d, "--format", "json"], capture_output=True, text=True)
    H = json.loads(hj.stdout) if hj.returncode == 0 else None
    state = tempfile.mkdtemp(prefix="attend-lens-state-")
    env = dict(os.environ, XDG_STATE_HOME=state, HOME=state)
    pages = {}
    for lesson, page in (("what-a-head-does", 1), ("what-a-head-does", 2), ("what-a-head-does", 5),
                         ("one-layer-or-two", 2), ("one-layer-or-two", 3)):
        q = subprocess.run([ATTEND, "--plain", "--model", d, "--lesson", lesson, "--page", str(page)],
                           input="q\n", capture_output=True, text=True, timeout=600, env=env)
        pages[(lesson, page)] = q.stdout
        check(q.returncode == 0 and "the model you opened" in q.stdout,
              "%s: plain mode reads %s page %d on it, saying it is the opened model" % (what, lesson, page))
    shutil.rmtree(state, ignore_errors=True)
    if not H:
        check(False, "%s: attend heads --format json: %s" % (what, hj.stderr.strip()[:200]))
        return
    best = max(H["heads"], key=lambda h: h["induction"])
    m = re.search(r"its strongest induction head is L(\d+)\.h(\d+) \(([\d.]+)\)(: too weak to be one, this "
                  r"model has no induction head)?", pages[("what-a-head-does", 1)])
    check(m and (int(m.group(1)), int(m.group(2))) == (best["layer"], best["head"])
          and abs(float(m.group(3)) - best["induction"]) <= 0.005 and bool(m.group(4)) == (best["induction"] < 0.3),
          "%s: lesson 22 page 1 names attend heads' strongest induction head L%d.h%d (%.3f)%s" % (
              what, best["layer"], best["head"], best["induction"],
              ", and says it is none" if best["induction"] < 0.3 else ""))
    cj = subprocess.run([ATTEND, "heads", "--model", d, "--circuits", "--format", "json"], capture_output=True,
                        text=True)
    circ = json.loads(cj.stdout)["circuits"] if cj.returncode == 0 else []
    m = re.search(r"copying score \(.*?\) is (-?\d+\.\d+)", pages[("one-layer-or-two", 2)])
    want = [c["copying"] for c in circ if (c["layer"], c["head"]) == (best["layer"], best["head"])]
    check(m and want and abs(float(m.group(1)) - want[0]) <= 0.005,
          "%s: lesson 23 page 2 gives the induction head's copying score, attend heads --circuits' %s" % (
              what, want[0] if want else None))
    m = re.search(r"yours gets ([\d.]+) against ([\d.]+) on the first", pages[("one-layer-or-two", 3)])
    check(m and abs(float(m.group(1)) - H["loss_second_copy"]) <= 0.005
          and abs(float(m.group(2)) - H["loss_first_copy"]) <= 0.005,
          "%s: lesson 23's pair page gives attend heads' copy losses %.2f, %.2f" % (
              what, H["loss_second_copy"], H["loss_first_copy"]))


def refusals(tmp):
    rc, _, err = run(["--model", "data/translate.json", "--sentence", "the cat", "--target", "le chat", "--lens"])
    check(rc == 1 and "encoder-decoder" in err, "an encoder-decoder model is refused, saying why: " + err.strip()[:90])
    post = os.path.join(tmp, "post.json")
    subprocess.run([ATTEND, "init-model", "--config", "tests/ref/configs/dec_learned_ln_post_relu_scaled.json",
                    "--vocab", "data/vocab.txt", "--out", post], capture_output=True, check=True)
    rc, _, err = run(["--model", post, "--sentence", "the cat sat", "--attribute", "mat"])
    check(rc == 1 and "post-norm" in err, "attribution on a post-norm model is refused, saying why: " + err.strip()[:90])
    rc, out, err = run(["--model", post, "--sentence", "the cat sat", "--lens", "--format", "json"])
    check(rc == 0 and len(json.loads(out)["lens"]) == 3, "the lens reads a post-norm model (r0..r2)")
    rc, out, err = run(["--model", "data/decoder.json", "--sentence", "the cat sat on the mat",
                        "--patch", "the dog sat", "--metric", "mat"])
    check(rc == 1 and "same number of tokens" in err and out == "",
          "--patch with a corrupted sentence of another length: a clear message, no output")
    rc, _, err = run(["--model", "data/decoder.json", "--sentence", "the cat", "--attribute", "the cat"])
    check(rc == 1 and '"the cat"' in err and "one token" in err, "--attribute of two tokens names the value")
    rc, _, err = run(["--model", "data/decoder.json", "--sentence", "the cat", "--attribute", "999999"])
    check(rc == 1 and "0..273" in err, "--attribute 999999 names the id range")
    rc, _, err = run(["--model", "data/decoder.json", "--sentence", "the cat", "--attribute", "mat", "--position", "2"])
    check(rc == 1 and "positions 0..1" in err, "--position past the sentence names the positions")
    rc, _, err = run(["--model", "data/decoder.json", "--sentence", "the cat", "--patch", "a dog"])
    check(rc == 2 and "--metric" in err, "--patch without --metric is a usage error")
    rc, _, err = run(["--model", "data/decoder.json", "--sentence", "the cat", "--top", "3"])
    check(rc == 2 and "--lens" in err, "--top without --lens is a usage error")
    rc, _, err = run(["--model", "data/decoder.json", "--sentence", "the cat", "--patch", "the cat",
                      "--metric", "mat"])
    check(rc == 1 and "no difference" in err, "patching a sentence into itself: nothing to restore, said")


def main():
    if not os.path.isfile("data/decoder.json"):
        print("lens_check: run from the repo root")
        print("0 passed, 1 failed")
        return 1
    tmp = tempfile.mkdtemp(prefix="attend-lens-")
    try:
        refusals(tmp)
        eigen_check()
        lesson_check()
        lesson_patch_check()
        M, vocab = attend_model("data/decoder.json")
        model_checks(M, "data/decoder.json", "the cat sat on the mat",
                     ["the dog sat on the mat"], "decoder.json", word="mat")
        M, vocab = attend_model("data/encoder.json")
        model_checks(M, "data/encoder.json", "the cat sat on the mat",
                     ["the dog sat on the mat"], "encoder.json")
        M, vocab = attend_model("data/induction.json")
        words = [w for w in vocab if not w.startswith("<")]
        seg = words[3:11]
        clean = " ".join(seg + seg)
        corrupt = " ".join(seg + [words[20]] + seg[1:])
        model_checks(M, "data/induction.json", clean, [corrupt], "induction.json", word=seg[1])
        circuits_check(M, "data/induction.json", vocab, "induction.json")
        M1, vocab1 = attend_model("data/induction-1layer.json")
        circuits_check(M1, "data/induction-1layer.json", vocab1, "induction-1layer.json")
        effect_check(M, ["--model", "data/induction.json"], 1, "lion key moon cat lion key moon",
                     "lesson 22 page 1 (induction.json)")
        opened_check("data/induction.json", "induction.json opened", tmp)  # a model with the circuit
        M, vocab = attend_model("data/wordnet.json")
        model_checks(M, "data/wordnet.json", "she sat by the river bank .",
                     ["he sat by the river bank .", "she sat by the river shore .", "she ran by the river bank ."],
                     "wordnet.json (RoPE, tied)")
        rng = np.random.default_rng(36)
        for spec in hf_models.MODELS:
            if spec[0] not in ("gpt2-f32", "llama-gqa-untied-f32-sharded", "qwen2-bias-bf16"):
                continue
            d, enc, W = hf_models.write_model(tmp, spec, rng)
            cfg = spec[1]
            W = {k[len(spec[5]):] if k.startswith(spec[5]) else k: v for k, v in W.items()}
            M = gpt2_model(W, cfg) if cfg["model_type"] == "gpt2" else llama_model(W, cfg)
            circuits_check(M, d, None, spec[0])
            if spec[0] == "gpt2-f32":
                effect_check(M, ["--model", d], 3, "the cat sat on the mat", "lesson 22 page 3 on " + spec[0])
                effect_check(M, ["--model", d], 1, "lion key moon cat lion key moon", "lesson 22 page 1 on " + spec[0])
            if spec[0] in ("gpt2-f32", "llama-gqa-untied-f32-sharded"):
                opened_check(d, spec[0], tmp)
            model_checks(M, d, "she sat by the river bank.",
                         ["he sat by the river bank.", "she sat by the river band.", "she ran by the river bank.",
                          "we sat by the river bank."], spec[0])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
