#!/usr/bin/python3
"""Where the bound's slack over a box comes from, on the paper's grid networks (issue 27; crown_bench7.md).

Independent of reluopt (numpy, scipy 1.10's milp/linprog on HiGHS, networks from netgen.py); the formulation is
MATH.md section 3's big-M, whose LP relaxation is the triangle relaxation.

  box   10 -> 100 -> 100 -> 1 (seed 777 + 10000 L + d), the dyadic box of --depth halvings (round-robin over the
        coordinates, as bab halves the widest) that contains --x. Reports the objective's maximum over the box
        under: crown (numpy CROWN: back-substituted layer-2 bounds, adaptive lower slopes), lp_crown (the triangle
        LP with those layer-2 bounds), lp (with layer-2 bounds by LPs over layer 1's triangles), lp_exact (with
        exact layer-2 bounds, a MIP per bound; --exact), mip1 (layer 1 exact, layer 2 triangles), mip2 (layer 1
        triangles, layer 2 exact) and mip (the box's maximum; each MIP --mip-time seconds, its dual bound when
        it stops short).
  cuts  d -> 100 -> 1: the root LP (triangles) and the same LP with Anderson et al.'s cuts separated until no
        point violates one (the ideal single-neuron relaxation over the box), maximizing the output over [0,1]^d.

    /usr/bin/python3 bench/crown_slack.py box --depth 20 --x 0 0 1 0 1 1 1 0.1899043685803223 1 1
    /usr/bin/python3 bench/crown_slack.py cuts --d 100
"""
import argparse
import os
import sys

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import csr_matrix

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netgen  # noqa: E402


def interval(W, b, lo, hi):
    return np.maximum(W, 0) @ lo + np.minimum(W, 0) @ hi + b, np.maximum(W, 0) @ hi + np.minimum(W, 0) @ lo + b


class Model:
    """Big-M rows over the columns x, y_1, ..., one binary per unstable neuron; rows as (dict, lower, upper)."""

    def __init__(self, lo, hi):
        self.rows, self.lb, self.ub, self.binary_of = [], list(lo), list(hi), []

    def column(self, lb, ub):
        self.lb.append(lb)
        self.ub.append(ub)
        return len(self.lb) - 1

    def relu_layer(self, inputs, W, b, l, u):
        """Columns y = relu(W inputs + b) given l <= h <= u; returns them and the layer's binaries."""
        ys, zs = [], []
        for j in range(len(b)):
            h = {i: W[j, k] for k, i in enumerate(inputs) if W[j, k] != 0.0 and self.ub[i] > 0.0}
            y = self.column(max(l[j], 0.0), max(u[j], 0.0))
            ys.append(y)
            if u[j] <= 0:
                continue
            if l[j] >= 0:
                self.rows.append(({**h, y: -1.0}, -b[j], -b[j]))
                continue
            z = self.column(0.0, 1.0)
            zs.append(z)
            self.rows.append(({**h, y: -1.0}, -np.inf, -b[j]))                       # h <= y
            self.rows.append(({**{i: -w for i, w in h.items()}, y: 1.0, z: -l[j]}, -np.inf, b[j] - l[j]))
            self.rows.append(({y: 1.0, z: -u[j]}, -np.inf, 0.0))                     # y <= u z
        self.binary_of.append(zs)
        return ys

    def maximize(self, objective, integral=(), seconds=60.0):
        """max objective . v (a dict) with the binaries of the layers in `integral` integral: (value, bound, v)."""
        n = len(self.lb)
        A = np.zeros((len(self.rows), n))
        for r, (row, _, _) in enumerate(self.rows):
            for i, v in row.items():
                A[r, i] = v
        c = np.zeros(n)
        for i, v in objective.items():
            c[i] = v
        kind = np.zeros(n)
        for k in integral:
            kind[self.binary_of[k]] = 1
        res = milp(-c, constraints=LinearConstraint(csr_matrix(A), [r[1] for r in self.rows], [r[2] for r in self.rows]),
                   bounds=Bounds(self.lb, self.ub), integrality=kind, options=dict(time_limit=seconds))
        value = -res.fun if res.x is not None else None
        bound = -getattr(res, "mip_dual_bound", None) if getattr(res, "mip_dual_bound", None) is not None else value
        return value, bound, res.x


def crown(layers, lo, hi):
    """(bound, l2, u2): CROWN with adaptive lower slopes through 10 -> n -> n -> 1."""
    (W1, b1), (W2, b2), (W3, b3) = layers
    l1, u1 = interval(W1, b1, lo, hi)

    def lines(l, u):
        up = np.where(u <= 0, 0, np.where(l >= 0, 1, u / np.maximum(u - l, 1e-300)))
        return up, np.where((l < 0) & (u > 0), -l * up, 0), np.where(u <= 0, 0, np.where(l >= 0, 1, (u >= -l) * 1.0))

    def upper(a, l, u, W, b, below):  # max of a . relu(W v + b) + const, v from `below`
        up, t, low = lines(l, u)
        s = np.where(a >= 0, up, low)
        lam, const = below((a * s) @ W)
        return lam, const + (a * s) @ b + np.maximum(a, 0) @ t

    def box(a):
        return a, 0.0

    def first(a):
        lam, const = upper(a, l1, u1, W1, b1, box)
        return np.maximum(lam, 0) @ hi + np.minimum(lam, 0) @ lo + const

    u2 = np.array([first(W2[j]) + b2[j] for j in range(len(b2))])
    l2 = np.array([-first(-W2[j]) + b2[j] for j in range(len(b2))])
    lam, const = upper(W3[0], l2, u2, W2, b2, lambda a: upper(a, l1, u1, W1, b1, box))
    return np.maximum(lam, 0) @ hi + np.minimum(lam, 0) @ lo + const + b3[0], l2, u2


def layer2_bounds(layers, lo, hi, integral, seconds):
    """Layer-2 bounds from the model of layer 1 (its binaries integral or not), each kept within CROWN's."""
    (W1, b1), (W2, b2), _ = layers
    _, l2, u2 = crown(layers, lo, hi)
    m = Model(lo, hi)
    ys = m.relu_layer(range(len(lo)), W1, b1, *interval(W1, b1, lo, hi))
    for j in np.flatnonzero((l2 < 0) & (u2 > 0)):
        top = m.maximize({y: W2[j, k] for k, y in enumerate(ys)}, integral, seconds)[1]
        bottom = m.maximize({y: -W2[j, k] for k, y in enumerate(ys)}, integral, seconds)[1]
        u2[j] = min(u2[j], top + b2[j])
        l2[j] = max(l2[j], -bottom + b2[j])
    return l2, u2


def box_part(a):
    layers = netgen.make_network(10, [100, 100], 777 + 20000 + 10)
    (W1, b1), (W2, b2), (W3, b3) = layers
    cuts = np.array([a.depth // 10 + (1 if i < a.depth % 10 else 0) for i in range(10)])
    width = 0.5 ** cuts
    lo = np.minimum(np.floor(np.array(a.x) / width), 2.0 ** cuts - 1) * width
    hi = lo + width
    bound, l2c, u2c = crown(layers, lo, hi)
    out = {"crown": bound}
    sets = [("lp_crown", l2c, u2c), ("lp", *layer2_bounds(layers, lo, hi, (), a.mip_time))]
    if a.exact:
        sets.append(("lp_exact", *layer2_bounds(layers, lo, hi, (0,), a.mip_time)))
    for name, l2, u2 in sets:
        m = Model(lo, hi)
        ys = m.relu_layer(m.relu_layer(range(10), W1, b1, *interval(W1, b1, lo, hi)), W2, b2, l2, u2)
        objective = {y: W3[0, k] for k, y in enumerate(ys)}
        runs = [(name, ())] + ([("mip1", (0,)), ("mip2", (1,)), ("mip", (0, 1))] if name == "lp" else [])
        for label, integral in runs:
            value, upper_bound, _ = m.maximize(objective, integral, a.mip_time)
            out[label] = upper_bound + b3[0]
            if label == "mip" and value is not None:
                out["mip_value"] = value + b3[0]
        out["unstable2_" + name] = int(np.sum((l2 < 0) & (u2 > 0)))
    print("depth %d box %s..%s" % (a.depth, lo.tolist(), hi.tolist()))
    for k, v in out.items():
        print("  %-16s %s" % (k, "%.4f" % v if isinstance(v, float) else v))


def cuts_part(a):
    layers = netgen.make_network(a.d, [100], 777 + 10000 + a.d)
    (W, b), (V, c0) = layers
    lo, hi = np.zeros(a.d), np.ones(a.d)
    l, u = interval(W, b, lo, hi)
    m = Model(lo, hi)
    ys = m.relu_layer(range(a.d), W, b, l, u)
    zs = dict(zip([j for j in range(len(b)) if l[j] < 0 < u[j]], m.binary_of[0]))
    objective = {y: V[0, j] for j, y in enumerate(ys)}
    for round_ in range(a.rounds):
        value, _, v = m.maximize(objective)
        x = v[:a.d]
        added = 0
        # With L_i, U_i the box's ends where w_i x_i is least and largest, and I the i with
        # w_i (x_i - L_i (1 - z)) < w_i U_i z, the most violated cut of y = relu(w x + b) at the point is
        #     y <= sum_I w_i (x_i - L_i (1 - z)) + (b + sum_{i not in I} w_i U_i) z.
        for j, zc in zs.items():
            if V[0, j] <= 0:  # concave in the objective: the LP is exact on it
                continue
            w = W[j]
            lo_w, up_w = np.where(w >= 0, lo, hi), np.where(w >= 0, hi, lo)
            left, right = w * (x - lo_w * (1 - v[zc])), w * up_w * v[zc]
            inside = left < right
            if v[ys[j]] <= left[inside].sum() + (b[j] + (w * up_w)[~inside].sum()) * v[zc] + 1e-7:
                continue
            row = {i: -w[i] for i in np.flatnonzero(inside)}
            row[ys[j]] = 1.0
            row[zc] = -(w * lo_w)[inside].sum() - b[j] - (w * up_w)[~inside].sum()
            m.rows.append((row, -np.inf, -(w * lo_w)[inside].sum()))
            added += 1
        print("round %d  bound %.4f  cuts added %d" % (round_, value + c0[0], added), flush=True)
        if added == 0:
            break


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("part", choices=["box", "cuts"])
    ap.add_argument("--depth", type=int, default=20)
    ap.add_argument("--x", type=float, nargs=10, default=[0, 0, 1, 0, 1, 1, 1, 0.1899043685803223, 1, 1])
    ap.add_argument("--exact", action="store_true", help="box: also exact layer-2 bounds (a MIP per bound)")
    ap.add_argument("--mip-time", type=float, default=60.0)
    ap.add_argument("--d", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=200)
    a = ap.parse_args()
    box_part(a) if a.part == "box" else cuts_part(a)


if __name__ == "__main__":
    main()
