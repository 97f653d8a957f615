#!/usr/bin/python3
"""VGG-shaped ONNX networks and VNN-LIB properties in the form of VNN-COMP's vggnet16 benchmark (2022/2023).

The benchmark's network is vgg16-7 from the ONNX model zoo (opset 7, input [1,3,224,224], ImageNet); this machine
has no copy, so this writes one of the same shape: 13 Conv 3x3 pad 1 (64, 64 | 128, 128 | 256 x 3 | 512 x 3 |
512 x 3 maps) each followed by Relu, a MaxPool 2x2 stride 2 after each block, Flatten, Gemm 25088 -> 4096, Relu,
Dropout, Gemm 4096 -> 4096, Relu, Dropout, Gemm 4096 -> 1000 (transB=1, as the zoo file writes its Gemms), with
random He-scaled float32 weights from a fixed seed (not a trained network: its answers say nothing about VGG16's
robustness, only whether each instance ends cleanly).

The properties perturb `pixels` input elements by +-eps around a fixed image (the others have lower == upper, as
the benchmark's do) and ask for the label the network gives the image: unsafe when some other class scores at
least as high, written as VNN-COMP writes it, (assert (or (and (>= Y_j Y_t)) ...)) over j != t.

    bench/vgg_models.py --out DIR [--size 224] [--scale 1] [--pixels 1 3 10] [--eps 0.05] [--seed 0] [--classes 1000]

--scale divides every channel count (and the first two Gemms' widths) for smaller nets of the same shape; --size
sets the image side (a multiple of 32), --classes the last Gemm's outputs (1000). Writes DIR/vgg16.onnx (or vgg_s<scale>_<size>.onnx), DIR/<net>_p<k>.vnnlib,
and DIR/<net>.json with the image, the label and the network's outputs at the image (from a numpy forward pass).
"""
import argparse
import json
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

BLOCKS = [(64, 2), (128, 2), (256, 3), (512, 3), (512, 3)]


def build(size, scale, seed, classes=1000):
    """The ONNX model and its parameters (for the numpy forward pass)."""
    rng = np.random.default_rng(seed)
    nodes, inits, params = [], [], []
    x, channels, side = "data", 3, size
    for b, (maps, convs) in enumerate(BLOCKS):
        maps = max(1, maps // scale)
        for c in range(convs):
            name = f"conv{b + 1}_{c + 1}"
            w = (rng.standard_normal((maps, channels, 3, 3)) * np.sqrt(2.0 / (9 * channels))).astype(np.float32)
            bias = (rng.uniform(-0.05, 0.05, maps)).astype(np.float32)
            inits += [numpy_helper.from_array(w, name + "_W"), numpy_helper.from_array(bias, name + "_B")]
            nodes.append(helper.make_node("Conv", [x, name + "_W", name + "_B"], [name], kernel_shape=[3, 3],
                                          pads=[1, 1, 1, 1], strides=[1, 1]))
            nodes.append(helper.make_node("Relu", [name], [name + "_relu"]))
            params.append(("conv", w, bias))
            x, channels = name + "_relu", maps
        nodes.append(helper.make_node("MaxPool", [x], [f"pool{b + 1}"], kernel_shape=[2, 2], strides=[2, 2],
                                      pads=[0, 0, 0, 0]))
        params.append(("pool",))
        x, side = f"pool{b + 1}", side // 2
    nodes.append(helper.make_node("Flatten", [x], ["flatten"], axis=1))
    x, width = "flatten", channels * side * side
    widths = [max(1, 4096 // scale), max(1, 4096 // scale), classes]
    for k, out in enumerate(widths):
        name = f"fc{k + 6}"
        w = (rng.standard_normal((out, width)) * np.sqrt(2.0 / width)).astype(np.float32)
        bias = rng.uniform(-0.05, 0.05, out).astype(np.float32)
        inits += [numpy_helper.from_array(w, name + "_W"), numpy_helper.from_array(bias, name + "_B")]
        nodes.append(helper.make_node("Gemm", [x, name + "_W", name + "_B"], [name], alpha=1.0, beta=1.0, transA=0,
                                      transB=1))
        params.append(("fc", w, bias))
        x, width = name, out
        if k < 2:
            nodes.append(helper.make_node("Relu", [x], [name + "_relu"]))
            nodes.append(helper.make_node("Dropout", [name + "_relu"], [name + "_drop"], ratio=0.5))
            params.append(("relu",))
            x = name + "_drop"
    graph = helper.make_graph(nodes, "vgg16", [helper.make_tensor_value_info("data", TensorProto.FLOAT, [1, 3, size, size])],
                              [helper.make_tensor_value_info(x, TensorProto.FLOAT, [1, classes])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 7)])
    model.ir_version = 3
    return model, params


def conv2d(x, w, b):
    """x [C,H,W], w [M,C,3,3], pad 1 stride 1: im2col and one product."""
    c, h, wd = x.shape
    padded = np.zeros((c, h + 2, wd + 2), dtype=np.float64)
    padded[:, 1:-1, 1:-1] = x
    cols = np.empty((c, 3, 3, h, wd))
    for i in range(3):
        for j in range(3):
            cols[:, i, j] = padded[:, i:i + h, j:j + wd]
    return (w.reshape(w.shape[0], -1).astype(np.float64) @ cols.reshape(c * 9, h * wd)).reshape(-1, h, wd) + \
        b.astype(np.float64)[:, None, None]


def forward(params, image):
    """The network's outputs at `image` [3,H,W] in double precision."""
    x = image.astype(np.float64)
    for p in params:
        if p[0] == "conv":
            x = np.maximum(conv2d(x, p[1], p[2]), 0.0)
        elif p[0] == "pool":
            c, h, w = x.shape
            x = x.reshape(c, h // 2, 2, w // 2, 2).max(axis=(2, 4))
        elif p[0] == "fc":
            x = p[1].astype(np.float64) @ x.reshape(-1) + p[2].astype(np.float64)
        else:
            x = np.maximum(x, 0.0)
    return x


def write_vnnlib(path, image, pixels, eps, label, outputs):
    flat = image.reshape(-1)
    lo, hi = flat.copy(), flat.copy()
    lo[pixels] = np.maximum(flat[pixels] - eps, 0.0)
    hi[pixels] = np.minimum(flat[pixels] + eps, 1.0)
    with open(path, "w") as f:
        f.write(f"; VGG-shaped network, {len(pixels)} pixels perturbed by {eps}, label {label}\n")
        for i in range(flat.size):
            f.write(f"(declare-const X_{i} Real)\n")
        for j in range(outputs):
            f.write(f"(declare-const Y_{j} Real)\n")
        for i in range(flat.size):
            f.write(f"(assert (<= X_{i} {hi[i]:.9g}))\n(assert (>= X_{i} {lo[i]:.9g}))\n")
        f.write("(assert (or\n")
        for j in range(outputs):
            if j != label:
                f.write(f"    (and (>= Y_{j} Y_{label}))\n")
        f.write("))\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--size", type=int, default=224)
    parser.add_argument("--scale", type=int, default=1)
    parser.add_argument("--pixels", type=int, nargs="+", default=[1, 3, 10])
    parser.add_argument("--eps", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--classes", type=int, default=1000)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    name = "vgg16" if args.scale == 1 and args.size == 224 else f"vgg_s{args.scale}_{args.size}"
    model, params = build(args.size, args.scale, args.seed, args.classes)
    onnx.save(model, os.path.join(args.out, name + ".onnx"))
    rng = np.random.default_rng(args.seed + 1)
    image = rng.uniform(0.0, 1.0, (3, args.size, args.size)).astype(np.float32)
    outputs = forward(params, image)
    label = int(np.argmax(outputs))
    for k in args.pixels:
        pixels = rng.choice(image.size, size=k, replace=False)
        write_vnnlib(os.path.join(args.out, f"{name}_p{k}.vnnlib"), image, pixels, args.eps, label, outputs.size)
    with open(os.path.join(args.out, name + ".json"), "w") as f:
        json.dump({"image": image.reshape(-1).astype(np.float64).tolist(), "label": label,
                   "outputs": outputs.tolist()}, f)
    print(name, "label", label, "top two", np.sort(outputs)[-2:].tolist())


if __name__ == "__main__":
    main()
