#!/usr/bin/python3
"""Re-checks a `reluopt verify` answer independently of reluopt: reads the ONNX file with onnx + numpy, runs
its forward pass (Gemm, MatMul, Add, Sub, Mul, Div, Relu, LeakyRelu, PRelu, Clip, Abs, Max, Min, Conv, MaxPool,
GlobalMaxPool, Concat, Flatten, Reshape, Identity, Constant) in float64 and in float32, parses the VNN-LIB file with its own s-expression reader, and evaluates the property's assertions
at the counterexample's X with the forward pass's Y.

    /usr/bin/python3 bench/verify_check.py MODEL.onnx PROP.vnnlib RESULT_FILE

Prints one line and exits 0 when the result is not sat, or is a sat whose X lies in the property's input set
and whose float64 outputs satisfy every assertion (and match the file's Y to 1e-6 relative); 1 otherwise.
"""
import re
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def conv2d(x, w, b, attrs):
    """ONNX Conv on one NCHW sample, explicit pads only (auto_pad NOTSET), by a sum over the kernel offsets."""
    if attrs.get("auto_pad", b"NOTSET") not in (b"NOTSET", "NOTSET"):
        raise SystemExit("verify_check: Conv with auto_pad not supported")
    sh, sw = attrs.get("strides", [1, 1])
    dh, dw = attrs.get("dilations", [1, 1])
    top, left, bottom, right = attrs.get("pads", [0, 0, 0, 0])
    group = attrs.get("group", 1)
    x = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)))
    m, cg, kh, kw = w.shape
    oh = (x.shape[2] - dh * (kh - 1) - 1) // sh + 1
    ow = (x.shape[3] - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((1, m, oh, ow), dtype=x.dtype)
    per_group = m // group
    for g in range(group):
        xs = x[0, g * cg:(g + 1) * cg]
        for i in range(kh):
            for j in range(kw):
                patch = xs[:, i * dh:i * dh + sh * (oh - 1) + 1:sh, j * dw:j * dw + sw * (ow - 1) + 1:sw]
                out[0, g * per_group:(g + 1) * per_group] += np.einsum("mc,chw->mhw", w[g * per_group:(g + 1) * per_group, :, i, j], patch)
    if b is not None:
        out += b.reshape(1, m, 1, 1)
    return out


def maxpool2d(x, attrs):
    """ONNX MaxPool on one NCHW sample, explicit pads only: padding is -inf, so it never wins a window."""
    if attrs.get("auto_pad", b"NOTSET") not in (b"NOTSET", "NOTSET"):
        raise SystemExit("verify_check: MaxPool with auto_pad not supported")
    kh, kw = attrs["kernel_shape"]
    sh, sw = attrs.get("strides", [1, 1])
    top, left, bottom, right = attrs.get("pads", [0, 0, 0, 0])
    x = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)), constant_values=-np.inf)
    oh, ow = (x.shape[2] - kh) // sh + 1, (x.shape[3] - kw) // sw + 1
    out = np.full((1, x.shape[1], oh, ow), -np.inf, dtype=x.dtype)
    for i in range(kh):
        for j in range(kw):
            out = np.maximum(out, x[:, :, i:i + sh * (oh - 1) + 1:sh, j:j + sw * (ow - 1) + 1:sw])
    return out


def clip(a, attrs):
    lo = a[1] if len(a) > 1 and a[1] is not None else attrs.get("min", -np.inf)
    hi = a[2] if len(a) > 2 and a[2] is not None else attrs.get("max", np.inf)
    return np.minimum(np.maximum(a[0], lo), hi)


def forward(model, x, dtype):
    g = model.graph
    values = {t.name: numpy_helper.to_array(t).astype(dtype) for t in g.initializer}
    inputs = [i for i in g.input if i.name not in values]
    shape = [d.dim_value or 1 for d in inputs[0].type.tensor_type.shape.dim]
    values[inputs[0].name] = np.asarray(x, dtype=dtype).reshape(shape)
    for n in g.node:
        a = [values[i] if i else None for i in n.input]
        attrs = {at.name: onnx.helper.get_attribute_value(at) for at in n.attribute}
        op = n.op_type
        if op == "Gemm":
            A, B = a[0], a[1]
            if attrs.get("transA", 0): A = A.T
            if attrs.get("transB", 0): B = B.T
            out = attrs.get("alpha", 1.0) * (A @ B)
            if len(a) > 2 and a[2] is not None: out = out + attrs.get("beta", 1.0) * a[2]
        elif op == "MatMul": out = a[0] @ a[1]
        elif op == "Add": out = a[0] + a[1]
        elif op == "Sub": out = a[0] - a[1]
        elif op == "Mul": out = a[0] * a[1]
        elif op == "Div": out = a[0] / a[1]
        elif op == "Relu": out = np.maximum(a[0], 0)
        elif op == "LeakyRelu": out = np.where(a[0] > 0, a[0], attrs.get("alpha", 0.01) * a[0])
        elif op == "PRelu": out = np.where(a[0] > 0, a[0], a[1] * a[0])
        elif op == "Clip": out = clip(a, attrs)
        elif op == "Abs": out = np.abs(a[0])
        elif op == "Max": out = np.maximum.reduce(np.broadcast_arrays(*a))
        elif op == "Min": out = np.minimum.reduce(np.broadcast_arrays(*a))
        elif op == "MaxPool": out = maxpool2d(a[0], attrs)
        elif op == "GlobalMaxPool": out = a[0].max(axis=tuple(range(2, a[0].ndim)), keepdims=True)
        elif op == "Concat": out = np.concatenate(a, axis=attrs.get("axis", 0))
        elif op == "Conv": out = conv2d(a[0], a[1], a[2] if len(a) > 2 else None, attrs)
        elif op == "Flatten": out = a[0].reshape(a[0].shape[0], -1)
        elif op == "Reshape":
            target = [int(v) for v in a[1]]
            target = [a[0].shape[i] if v == 0 else v for i, v in enumerate(target)]
            out = a[0].reshape(target)
        elif op == "Identity": out = a[0]
        elif op == "Constant": out = numpy_helper.to_array(attrs["value"]).astype(dtype)
        else: raise SystemExit(f"verify_check: operator {op} not supported")
        values[n.output[0]] = np.asarray(out, dtype=dtype)
    return values[g.output[0].name].reshape(-1)


def sexprs(text):
    tokens = re.findall(r"\(|\)|[^\s()]+", re.sub(r";[^\n]*", "", text))
    stack = [[]]
    for t in tokens:
        if t == "(": stack.append([])
        elif t == ")":
            done = stack.pop()
            stack[-1].append(done)
        else: stack[-1].append(t)
    return stack[0]


def evaluate(e, env):
    if isinstance(e, str):
        return env[e] if e in env else float(e)
    op, args = e[0], e[1:]
    if op == "and": return all(evaluate(a, env) for a in args)
    if op == "or": return any(evaluate(a, env) for a in args)
    v = [evaluate(a, env) for a in args]
    if op == "+": return sum(v)
    if op == "-": return -v[0] if len(v) == 1 else v[0] - sum(v[1:])
    if op == "*": return float(np.prod(v))
    cmp = {"<=": lambda p, q: p <= q, ">=": lambda p, q: p >= q, "<": lambda p, q: p < q, ">": lambda p, q: p > q}
    if op in cmp: return all(cmp[op](v[i], v[i + 1]) for i in range(len(v) - 1))
    raise SystemExit(f"verify_check: operator {op} not supported")


def holds(asserts, x, y):
    env = {f"X_{i}": float(v) for i, v in enumerate(x)}
    env.update({f"Y_{j}": float(v) for j, v in enumerate(y)})
    return all(evaluate(a, env) for a in asserts)


def check(onnx_path, vnnlib_path, result_path):
    lines = open(result_path).read().split("\n", 1)
    status = lines[0].strip()
    if status != "sat":
        return True, status
    pairs = dict((k, float(v)) for k, v in re.findall(r"\((X_\d+|Y_\d+)\s+([^\s()]+)\)", lines[1]))
    nx = sum(1 for k in pairs if k[0] == "X")
    x = np.array([pairs[f"X_{i}"] for i in range(nx)])
    claimed = np.array([pairs[f"Y_{j}"] for j in range(len(pairs) - nx)])
    model = onnx.load(onnx_path)
    y64 = forward(model, x, np.float64)
    y32 = forward(model, x, np.float32).astype(np.float64)
    asserts = [e[1] for e in sexprs(open(vnnlib_path).read()) if e and e[0] == "assert"]
    ok64 = holds(asserts, x, y64)
    ok32 = holds(asserts, x, y32)
    matches = claimed.shape == y64.shape and np.allclose(claimed, y64, rtol=1e-6, atol=1e-9)
    return ok64 and matches, f"sat: float64 {'holds' if ok64 else 'FAILS'}, float32 {'holds' if ok32 else 'fails'}, " \
                             f"Y {'matches' if matches else 'DIFFERS'}"


if __name__ == "__main__":
    ok, text = check(*sys.argv[1:4])
    print(text)
    sys.exit(0 if ok else 1)
