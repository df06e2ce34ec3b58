/* lab_solution.c - the engine's way of each lab in a few lines, shown by `attend lab
 * solution` only after a pass or after several failed checks (the full reference solutions
 * live in the tests, not in what is installed). */
#include <string.h>

#include "lab.h"

static const char *const SOFTMAX_GUARD =
    "    mx = np.max(S, axis=-1, keepdims=True)\n"
    "    mx = np.where(np.isfinite(mx), mx, 0.0)        # a row of -inf only: no shift\n"
    "    e = np.exp(S - mx)\n"
    "    s = e.sum(axis=-1, keepdims=True)\n"
    "    W = np.divide(e, s, out=np.zeros_like(e), where=s > 0)\n";

static const struct {
    const char *name, *lang, *text[3];
} SOLUTIONS[] = {
    {"softmax", "py", {"def softmax(S):\n", NULL, "    return W\n"}},
    {"attention", "py",
     {"def attention(Q, K, V, mask=None):\n"
      "    S = Q @ K.T / np.sqrt(Q.shape[1])\n"
      "    if mask is not None:\n"
      "        S = S + mask                                 # before the softmax\n",
      NULL, "    return W @ V, W\n"}},
    {"masks", "py",
     {"def causal_mask(n):\n"
      "    return np.triu(np.full((n, n), -np.inf), k=1)\n\n"
      "def padding_mask(keep, n):\n"
      "    return np.tile(np.where(np.asarray(keep) > 0, 0.0, -np.inf), (n, 1))\n\n"
      "def masked_softmax(S, M):\n"
      "    S = S + M\n",
      NULL, "    return W\n"}},
    {"multihead", "py",
     {"def split_heads(X, h):\n"
      "    n, d = X.shape\n"
      "    return X.reshape(n, h, d // h).transpose(1, 0, 2)\n\n"
      "def merge_heads(H):\n"
      "    h, n, dh = H.shape\n"
      "    return H.transpose(1, 0, 2).reshape(n, h * dh)\n\n"
      "def multi_head(X, Wq, Wk, Wv, Wo, h):\n"
      "    Q, K, V = (split_heads(X @ W, h) for W in (Wq, Wk, Wv))\n"
      "    S = Q @ K.transpose(0, 2, 1) / np.sqrt(Q.shape[2])   # sqrt(d_h)\n",
      NULL, "    return merge_heads(W @ V) @ Wo\n"}},
    {"block", "py",
     {"def rmsnorm(x, g, eps=1e-5):\n"
      "    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * g\n\n"
      "def ffn(u, W1, W3, W2):\n"
      "    a = u @ W1\n"
      "    return (a / (1 + np.exp(-a)) * (u @ W3)) @ W2\n\n"
      "def block(X, g1, Wq, Wk, Wv, Wo, g2, W1, W3, W2, h):\n"
      "    out = np.empty_like(X)\n"
      "    for b, x in enumerate(X):\n"
      "        x = x + attention(rmsnorm(x, g1), Wq, Wk, Wv, Wo, h)   # the multihead lab's\n"
      "        out[b] = x + ffn(rmsnorm(x, g2), W1, W3, W2)\n"
      "    return out\n",
      NULL, NULL}},
    {"positions", "py",
     {"def sinusoidal(n, d):\n"
      "    pos, i = np.arange(n)[:, None], np.arange(d)[None, :]\n"
      "    angle = pos / np.power(10000.0, (i // 2 * 2) / d)\n"
      "    return np.where(i % 2 == 0, np.sin(angle), np.cos(angle))\n\n"
      "def encoded_attention(X, Wq, Wk, Wv):\n"
      "    return self_attention(X + sinusoidal(*X.shape), Wq, Wk, Wv)   # before attention\n",
      NULL, NULL}},
    {"kvcache", "py",
     {"def decode_step(cache, q, k, v):\n"
      "    cache.setdefault(\"K\", []).append(k)            # append first\n"
      "    cache.setdefault(\"V\", []).append(v)\n"
      "    K, V = np.array(cache[\"K\"]), np.array(cache[\"V\"])\n"
      "    s = K @ q / np.sqrt(q.shape[0])\n"
      "    e = np.exp(s - s.max())\n"
      "    return (e / e.sum()) @ V\n",
      NULL, NULL}},
    {"softmax", "c",
     {"for each row i:  mx = the row's max (0 if it is -INFINITY everywhere)\n"
      "                 o[j] = exp(x[j] - mx); sum += o[j]\n"
      "                 o[j] = sum > 0 ? o[j] / sum : 0\n", NULL, NULL}},
    {"attention", "c",
     {"for each query i:\n"
      "    w[j] = Σ_c Q[i*d_k + c]·K[j*d_k + c] / sqrt(d_k) + (mask ? mask[i*m + j] : 0)\n"
      "    mx = max_j w[j] (0 if -INFINITY); w[j] = exp(w[j] - mx); divide by Σ w (0 stays 0)\n"
      "    out[i*d_v + c] = Σ_j w[j]·V[j*d_v + c]\n", NULL, NULL}},
};

/* The three parts of a solution joined, the softmax's guard in the middle when asked. */
static char solution_buf[4096];

const char *lab_solution_text(const LabDef *d, const char *lang)
{
    for (size_t i = 0; i < sizeof SOLUTIONS / sizeof SOLUTIONS[0]; i++) {
        if (strcmp(SOLUTIONS[i].name, d->name) || strcmp(SOLUTIONS[i].lang, lang))
            continue;
        solution_buf[0] = '\0';
        strncat(solution_buf, SOLUTIONS[i].text[0], sizeof solution_buf - 1);
        if (SOLUTIONS[i].text[2]) {
            strncat(solution_buf, SOFTMAX_GUARD, sizeof solution_buf - strlen(solution_buf) - 1);
            strncat(solution_buf, SOLUTIONS[i].text[2],
                    sizeof solution_buf - strlen(solution_buf) - 1);
        }
        return solution_buf;
    }
    return NULL;
}
