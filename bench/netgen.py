#!/usr/bin/python3
"""Deterministic Xavier-initialised feed-forward ReLU networks for the benchmarks.

    make_network(d, hidden, seed) -> [(W, b), ...]   float64 arrays holding float32 values
    write_onnx(layers, path)                          opset 13, Gemm(transB=1) / Relu, like PyTorch
    load_onnx(path)          -> [(W, b), ...]         reads back a Gemm/MatMul+Add/Relu chain
    forward(layers, x)       -> output (float64)      x of shape (d,) or (n, d)

Network layout (MATH.md section 1): x_1 = x, h_k = W_k x_k + b_k, x_{k+1} = max(h_k, 0) for the
hidden layers, y = W_K x_K + b_K for the last one (1 output, no ReLU). W_k has PyTorch's
nn.Linear layout (out_features, in_features).

Initialisation, from numpy.random.default_rng(seed), layer by layer, W then b:
  * W ~ U(-a, a), a = sqrt(6 / (fan_in + fan_out))       (Glorot & Bengio 2010, "uniform Xavier",
    what the paper says it uses, = torch.nn.init.xavier_uniform_)
  * b ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in))                (torch.nn.Linear's default bias init)
  The paper names only the weight init. xavier_uniform_ is normally applied to the weights alone,
  leaving nn.Linear's default bias in place, so that is what we do. Zero biases would be a poor
  choice anyway: with b = 0 every h_k is positively homogeneous in x, every linear region is a cone
  through the origin, and the LP optimum over [0,1]^d always sits at a vertex reached along a ray,
  an unrepresentative (and much easier) instance.
The values are drawn in float64, rounded to float32 (what the ONNX file stores), and returned as
float64 copies of those float32 values, so the Python reference and the C++ tool optimise the very
same function.

CLI:  /usr/bin/python3 bench/netgen.py --d 100 --hidden 100 100 --seed 7 -o net.onnx
"""
import argparse
import math
import os
import sys

import numpy as np


def make_network(d, hidden, seed, outputs=1):
    """Layers [(W, b)] of a d -> hidden... -> outputs ReLU network, float32 values as float64."""
    d = int(d)
    hidden = [int(h) for h in hidden]
    if d <= 0 or any(h <= 0 for h in hidden) or outputs <= 0:
        raise ValueError("dimensions must be positive")
    rng = np.random.default_rng(seed)
    dims = [d] + hidden + [int(outputs)]
    layers = []
    for fan_in, fan_out in zip(dims[:-1], dims[1:]):
        a = math.sqrt(6.0 / (fan_in + fan_out))
        W = rng.uniform(-a, a, size=(fan_out, fan_in)).astype(np.float32)
        bb = 1.0 / math.sqrt(fan_in)
        b = rng.uniform(-bb, bb, size=fan_out).astype(np.float32)
        layers.append((W.astype(np.float64), b.astype(np.float64)))
    return layers


def forward(layers, x):
    """Network output(s) in float64. x: (d,) -> (m,) ; (n, d) -> (n, m)."""
    h = np.asarray(x, dtype=np.float64)
    last = len(layers) - 1
    for k, (W, b) in enumerate(layers):
        h = h @ W.T + b
        if k < last:
            h = np.maximum(h, 0.0)
    return h


def describe(layers):
    return "%d -> %s -> %d" % (layers[0][0].shape[1],
                               " -> ".join(str(W.shape[0]) for W, _ in layers[:-1]) or "(none)",
                               layers[-1][0].shape[0])


def write_onnx(layers, path, producer="reluopt-bench-netgen"):
    """Write the network as ONNX opset 13: Gemm(x, W, b, transB=1) [Relu Gemm ...], input "x"
    of shape [1, d], output "y" of shape [1, m], float32 initialisers (exact, since the values
    are float32-representable)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    d = layers[0][0].shape[1]
    m = layers[-1][0].shape[0]
    nodes, inits = [], []
    cur = "x"
    for k, (W, b) in enumerate(layers):
        W32 = W.astype(np.float32)
        b32 = b.astype(np.float32)
        if not (np.array_equal(W32.astype(np.float64), W) and np.array_equal(b32.astype(np.float64), b)):
            raise ValueError("layer %d holds values that are not float32-representable" % k)
        wn, bn = "fc%d.weight" % k, "fc%d.bias" % k
        inits.append(numpy_helper.from_array(W32, wn))
        inits.append(numpy_helper.from_array(b32, bn))
        out = "y" if k == len(layers) - 1 else "fc%d_out" % k
        nodes.append(helper.make_node("Gemm", [cur, wn, bn], [out], name="Gemm_%d" % k,
                                      alpha=1.0, beta=1.0, transB=1))
        cur = out
        if k < len(layers) - 1:
            out = "relu%d_out" % k
            nodes.append(helper.make_node("Relu", [cur], [out], name="Relu_%d" % k))
            cur = out
    graph = helper.make_graph(
        nodes, "relu_net",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, d])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, m])],
        initializer=inits)
    model = helper.make_model(graph, producer_name=producer,
                              opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7  # what opset 13 was released with; readable by older runtimes too
    onnx.checker.check_model(model)
    onnx.save(model, path)
    return path


def cached_onnx(workdir, name, d, hidden, seed):
    """workdir/name.onnx holding make_network(d, hidden, seed), written only when it is not there yet."""
    path = os.path.join(workdir, name + ".onnx")
    if not os.path.exists(path):
        write_onnx(make_network(d, hidden, seed), path)
    return path


def load_onnx(path):
    """Read back a plain chain of Gemm / (MatMul, Add) / Relu nodes into [(W, b)] (float64).
    Enough for the files write_onnx and PyTorch's exporter produce for nn.Sequential MLPs; anything
    else raises."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(path)
    g = model.graph
    inits = {t.name: numpy_helper.to_array(t).astype(np.float64) for t in g.initializer}
    for n in g.node:  # Constant nodes
        if n.op_type == "Constant":
            inits[n.output[0]] = numpy_helper.to_array(n.attribute[0].t).astype(np.float64)
    layers, relu_after = [], []
    for n in g.node:
        if n.op_type == "Constant":
            continue
        if n.op_type == "Gemm":
            at = {a.name: helper_attr(a) for a in n.attribute}
            if at.get("transA", 0):
                raise ValueError("Gemm with transA is not supported")
            B = inits[n.input[1]]
            W = B if at.get("transB", 0) else B.T
            W = W * at.get("alpha", 1.0)
            b = inits[n.input[2]] * at.get("beta", 1.0) if len(n.input) > 2 and n.input[2] else np.zeros(W.shape[0])
            layers.append((W, np.broadcast_to(b, (W.shape[0],)).astype(np.float64).copy()))
            relu_after.append(False)
        elif n.op_type == "MatMul":
            W = inits[n.input[1]].T
            layers.append((W, np.zeros(W.shape[0])))
            relu_after.append(False)
        elif n.op_type == "Add":
            name = n.input[1] if n.input[1] in inits else n.input[0]
            W, b = layers[-1]
            layers[-1] = (W, b + inits[name].reshape(-1))
        elif n.op_type == "Relu":
            relu_after[-1] = True
        elif n.op_type in ("Identity", "Flatten"):
            continue
        else:
            raise ValueError("unsupported ONNX op %s" % n.op_type)
    if not layers or not all(relu_after[:-1]) or relu_after[-1]:
        raise ValueError("expected a Relu after every affine layer but the last")
    return layers


def helper_attr(a):
    from onnx import helper
    return helper.get_attribute_value(a)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--d", type=int, required=True, help="input dimension")
    ap.add_argument("--hidden", type=int, nargs="+", default=[100], help="hidden widths, e.g. 100 100")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("-o", "--output", required=True, help="ONNX file to write")
    ap.add_argument("--npz", help="also save the float64 weights here (W0,b0,W1,b1,...)")
    a = ap.parse_args(argv)
    layers = make_network(a.d, a.hidden, a.seed)
    write_onnx(layers, a.output)
    if a.npz:
        np.savez(a.npz, **{("%s%d" % (n, k)): v for k, (W, b) in enumerate(layers)
                           for n, v in (("W", W), ("b", b))})
    back = load_onnx(a.output)
    assert all(np.array_equal(W, W2) and np.array_equal(b, b2) for (W, b), (W2, b2) in zip(layers, back))
    print("wrote %s: %s, seed %d" % (a.output, describe(layers), a.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
