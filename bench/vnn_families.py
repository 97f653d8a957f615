#!/usr/bin/env python3
"""Stand-ins for the VNN-COMP 2021 families whose .onnx files this machine has no copy of, built with the tools
and conventions that wrote the real files, and VNN-LIB properties of the families' own forms.

| family | real files | stand-in here |
|---|---|---|
| eran | mnist_relu_6_100, mnist_relu_9_200: PyTorch, (x - 0.1307) / 0.3081 in the graph as `Sub`, `Div` | torch's TorchScript exporter at opset 9: input [1,1,28,28], Sub, Div, Flatten, 5 x 100 or 8 x 200 Gemm + Relu, Gemm -> 10 |
| marabou-cifar10 | cifar10_small/medium/large: Keras, exported by keras2onnx/tf2onnx, NHWC input [1,32,32,3] | tf2onnx 1.17 from a Keras model (opset 13): Transpose, Conv 4x4 (+Relu), Dropout, Flatten (tf2onnx's Shape/Gather/Cast/Slice/Concat/Reshape), MatMul + Add + Relu; the architectures of the family's info.txt |
| verivital | Convnet_avgpool, Convnet_maxpool: MATLAB exportONNXNetwork, NCHW [1,1,28,28] | written node by node in MATLAB's form (opset 8): Sub of the mean image (zero-centre normalization), Conv, BatchNormalization, Relu, AveragePool or MaxPool, Transpose + Reshape before the fully connected Gemm, initializers listed among the graph inputs; `_softmax` variants end in MATLAB's Softmax |
| cifar10_resnet | resnet_2b, resnet_4b: PyTorch (beta-CROWN's CResNet5/7, no batch norm), normalization outside the graph | the same modules (6244 and 14436 ReLUs) by torch's TorchScript exporter at opset 11: Conv, Relu, Add (residual), Shape/Gather/Unsqueeze/Concat/Reshape, Gemm |

Weights are random (He-scaled, seeded), so the answers say nothing about the real networks, only whether each
instance loads and ends with a right answer. Images are random (sparse strokes for MNIST, uniform for CIFAR).
Properties are written as the families' generators write them: eran, verivital, cifar10_resnet as a disjunction
`(or (and (>= Y_j Y_label)) ...)` (unsafe: some other class scores at least the label), marabou-cifar10 as a
conjunction `(assert (>= Y_target Y_i))` for every i (a targeted attack on (label + 1) % 10). eran, marabou and
verivital boxes are [x - eps, x + eps] clipped to [0, 1] in pixel space; cifar10_resnet's are normalized by
CIFAR-10's mean and std, as its generator does.

Each property also gets a PGD attack on the source model (torch or Keras: 6 restarts x 40 steps, the margin
being the worst case of the property's disjunction), whose best point is written to DIR/attacks.json: an `unsat`
answer where the attack found a counterexample is wrong. `bench/vnn_families.py check` re-checks every `sat` with
onnxruntime on the .onnx file: X inside the box and the property true at onnxruntime's outputs.

Needs torch, tensorflow-cpu, tf2onnx and onnxruntime: a scratch virtual environment, never a dependency of the
package (the repository's .venv has torch and onnx only; `pip install tensorflow-cpu tf2onnx onnxruntime` there).

    PY bench/vnn_families.py make --out DIR [--props 3] [--seed 0] [--families eran marabou verivital resnet]
    PY bench/vnn_families.py run --out DIR --reluopt BIN [--timeout 60]   # vnncomp/run_instance.sh per instance
    PY bench/vnn_families.py check --out DIR                               # onnxruntime + PGD cross-check
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
HERE = os.path.dirname(os.path.abspath(__file__))
CIFAR_MEAN = np.array([0.4914, 0.4822, 0.4465])
CIFAR_STD = np.array([0.2471, 0.2435, 0.2616])
# The families' timeouts (the 2021 instances.csv files) and perturbation radii.
TIMEOUTS = {"eran": 300, "marabou": 300, "verivital_avgpool": 300, "verivital_maxpool": 420, "resnet": 300}


# ---------------------------------------------------------------- properties


def write_vnnlib(path, lo, hi, label, n_out, form, comment):
    """The families' two output forms: 'or' (unsafe when some Y_j >= Y_label) and 'targeted' (Y_t >= every Y_i)."""
    lines = [f"; {comment}"]
    lines += [f"(declare-const X_{i} Real)" for i in range(len(lo))]
    lines += [f"(declare-const Y_{i} Real)" for i in range(n_out)]
    for i, (a, b) in enumerate(zip(lo, hi)):
        lines += [f"(assert (<= X_{i} {b:.8f}))", f"(assert (>= X_{i} {a:.8f}))"]
    if form == "or":
        lines.append("(assert (or")
        lines += [f"\t(and (>= Y_{j} Y_{label}))" for j in range(n_out) if j != label]
        lines.append("))")
    else:
        lines += [f"(assert (>= Y_{label} Y_{i}))" for i in range(n_out) if i != label]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def violation(y, label, form):
    """max over the disjuncts of the property's margin: >= 0 means the output satisfies the unsafe property."""
    others = np.delete(y, label)
    return float(others.max() - y[label]) if form == "or" else float(y[label] - others.max())


def mnist_image(rng):
    """A sparse stroke-like image in [0, 1]^(28x28): a few bright segments on black."""
    img = np.zeros((28, 28))
    for _ in range(4):
        r, c = rng.integers(4, 24, 2)
        dr, dc = rng.integers(-1, 2, 2)
        for t in range(8):
            rr, cc = np.clip([r + t * dr, c + t * dc], 0, 27)
            img[rr, max(cc - 1, 0):cc + 2] = rng.uniform(0.7, 1.0)
    return img


# ---------------------------------------------------------------- PGD (torch), shared by the torch-built families


def pgd_torch(forward, x0, lo, hi, label, form, rng, restarts=6, steps=40):
    """Projected gradient ascent on the property's margin over the box [lo, hi]; the best point and margin."""
    import torch
    lo_t, hi_t = torch.tensor(lo, dtype=torch.float64), torch.tensor(hi, dtype=torch.float64)
    best, best_x = -np.inf, None
    for r in range(restarts):
        start = x0 if r == 0 else rng.uniform(lo, hi)
        x = torch.tensor(start, dtype=torch.float64, requires_grad=True)
        step = float((hi - lo).max()) / 4 + 1e-12
        for _ in range(steps):
            y = forward(x)
            others = torch.cat([y[:label], y[label + 1:]])
            m = (others.max() - y[label]) if form == "or" else (y[label] - others.max())
            if m.item() > best:
                best, best_x = m.item(), x.detach().numpy().copy()
            g, = torch.autograd.grad(m, x)
            with torch.no_grad():
                x += step * torch.sign(g)
                x.copy_(torch.maximum(torch.minimum(x, hi_t), lo_t))
            step *= 0.95
    return best, best_x


# ---------------------------------------------------------------- families


def torch_export(model, shape, path, opset):
    import torch
    model.eval()
    torch.onnx.export(model.float(), torch.zeros(shape), path, opset_version=opset, dynamo=False,
                      input_names=["input"], output_names=["output"])


def eran(out, props, seed):
    import torch
    import torch.nn as nn

    class Normalize(nn.Module):
        def forward(self, x):
            return (x - 0.1307) / 0.3081

    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    instances = []
    for name, depth, width in (("mnist_relu_6_100", 5, 100), ("mnist_relu_9_200", 8, 200)):
        layers, n = [Normalize(), nn.Flatten()], 784
        for _ in range(depth):
            layers += [nn.Linear(n, width), nn.ReLU()]
            n = width
        layers.append(nn.Linear(n, 10))
        model = nn.Sequential(*layers).double().eval()
        path = os.path.join(out, name + ".onnx")
        torch_export(nn.Sequential(*layers), (1, 1, 28, 28), path, 9)
        model.double()
        fwd = lambda x, m=model: m(x.reshape(1, 1, 28, 28))[0]
        for k in range(props):
            x0 = mnist_image(rng).reshape(-1)
            label = int(fwd(torch.tensor(x0)).argmax())
            eps = 0.015
            lo, hi = np.clip(x0 - eps, 0, 1), np.clip(x0 + eps, 0, 1)
            instances.append(property_instance(out, "eran", name, k, x0, lo, hi, label, "or", 10, fwd, rng,
                                               f"eran stand-in: label {label}, eps {eps}"))
    return instances


def property_instance(out, family, net, k, x0, lo, hi, label, form, n_out, fwd, rng, comment):
    prop = os.path.join(out, f"{net}_prop{k}.vnnlib")
    write_vnnlib(prop, lo, hi, label, n_out, form, comment)
    margin, point = pgd_torch(fwd, x0, lo, hi, label, form, rng)
    return {"family": family, "onnx": net + ".onnx", "vnnlib": os.path.basename(prop), "label": label,
            "form": form, "timeout": TIMEOUTS.get(family, 300), "pgd_margin": margin,
            "pgd_point": point.tolist() if margin >= 0 else None}


def cifar_resnet(out, props, seed):
    import torch
    import torch.nn as nn

    class Block(nn.Module):  # beta-CROWN's BasicBlock with bn=False
        def __init__(self, cin, planes, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, planes, 3, stride, 1)
            self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1)
            self.shortcut = nn.Sequential()
            if stride != 1 or cin != planes:
                self.shortcut = nn.Sequential(nn.Conv2d(cin, planes, 1, stride))

        def forward(self, x):
            return torch.relu(self.conv2(torch.relu(self.conv1(x))) + self.shortcut(x))

    class CResNet(nn.Module):
        def __init__(self, planes, stages):
            super().__init__()
            self.conv1 = nn.Conv2d(3, planes, 3, 2, 1)
            blocks, cin = [], planes
            for p in stages:
                blocks += [Block(cin, p, 2), Block(p, p, 1)]
                cin = p
            self.blocks = nn.Sequential(*blocks)
            side = 16 // 2 ** len(stages)
            self.linear1 = nn.Linear(cin * side * side, 100)
            self.linear2 = nn.Linear(100, 10)

        def forward(self, x):
            x = self.blocks(torch.relu(self.conv1(x)))
            x = x.view(x.size(0), -1)
            return self.linear2(torch.relu(self.linear1(x)))

    rng = np.random.default_rng(seed + 1)
    torch.manual_seed(seed + 1)
    instances = []
    for name, planes, stages, eps in (("resnet_2b", 8, [16], 2 / 255), ("resnet_4b", 16, [32, 32], 1 / 255)):
        model = CResNet(planes, stages).eval()
        path = os.path.join(out, name + ".onnx")
        torch_export(model, (1, 3, 32, 32), path, 11)
        model.double()
        fwd = lambda x, m=model: m(x.reshape(1, 3, 32, 32))[0]
        mean, std = CIFAR_MEAN.reshape(3, 1, 1), CIFAR_STD.reshape(3, 1, 1)
        for k in range(props):
            img = rng.uniform(0, 1, (3, 32, 32))
            x0 = ((img - mean) / std).reshape(-1)
            lo = ((np.clip(img - eps, 0, 1) - mean) / std).reshape(-1)
            hi = ((np.clip(img + eps, 0, 1) - mean) / std).reshape(-1)
            label = int(fwd(torch.tensor(x0)).argmax())
            instances.append(property_instance(out, "resnet", name, k, x0, lo, hi, label, "or", 10, fwd, rng,
                                               f"CIFAR10 property with label: {label}."))
    return instances


def marabou(out, props, seed):
    import tensorflow as tf
    import tf2onnx
    tf.keras.utils.set_random_seed(seed + 2)
    rng = np.random.default_rng(seed + 2)
    archs = {"cifar10_small": [(8, 1), (16, 2)], "cifar10_medium": [(16, 2), (32, 2)],
             "cifar10_large": [(32, 2), (64, 2)]}
    instances = []
    for name, convs in archs.items():
        L = tf.keras.layers
        layers = [tf.keras.Input((32, 32, 3))]
        for i, (maps, stride) in enumerate(convs):
            layers.append(L.Conv2D(maps, 4, strides=stride, activation="relu", bias_initializer="random_uniform"))
            if i == 1:
                layers.append(L.Dropout(0.1))
        layers += [L.Flatten(), L.Dense(128, activation="relu", bias_initializer="random_uniform"), L.Dropout(0.5),
                   L.Dense(64, activation="relu", bias_initializer="random_uniform"), L.Dropout(0.5),
                   L.Dense(10, bias_initializer="random_uniform")]
        model = tf.keras.Sequential(layers)
        spec = (tf.TensorSpec((None, 32, 32, 3), tf.float32, name="input_1"),)
        fn = tf.function(lambda x, m=model: m(x, training=False), input_signature=spec)
        tf2onnx.convert.from_function(fn, input_signature=spec, opset=13,
                                      output_path=os.path.join(out, name + ".onnx"))
        for k in range(props):
            img = rng.uniform(0, 1, (32, 32, 3)).astype(np.float32)
            label = int(np.argmax(model(img[None], training=False)[0]))
            target = (label + 1) % 10
            eps = (0.012, 0.024)[k % 2]
            x0 = img.reshape(-1).astype(np.float64)
            lo, hi = np.maximum(0, x0 - eps), np.minimum(1, x0 + eps)
            prop = os.path.join(out, f"{name}_prop{k}.vnnlib")
            write_vnnlib(prop, lo, hi, target, 10, "targeted",
                         f"index {k}, correct label {label}, target label {target}, epsilon {eps}")
            margin, point = pgd_tf(model, x0, lo, hi, target, rng)
            instances.append({"family": "marabou", "onnx": name + ".onnx", "vnnlib": os.path.basename(prop),
                              "label": target, "form": "targeted", "timeout": TIMEOUTS["marabou"],
                              "pgd_margin": margin, "pgd_point": point.tolist() if margin >= 0 else None})
    return instances


def pgd_tf(model, x0, lo, hi, target, rng, restarts=6, steps=40):
    import tensorflow as tf
    best, best_x = -np.inf, None
    for r in range(restarts):
        x = tf.Variable((x0 if r == 0 else rng.uniform(lo, hi)).reshape(1, 32, 32, 3), dtype=tf.float64)
        step = float((hi - lo).max()) / 4
        for _ in range(steps):
            with tf.GradientTape() as tape:
                y = tf.cast(model(tf.cast(x, tf.float32), training=False)[0], tf.float64)
                m = y[target] - tf.reduce_max(tf.concat([y[:target], y[target + 1:]], 0))
            if float(m) > best:
                best, best_x = float(m), x.numpy().reshape(-1).copy()
            g = tape.gradient(m, x)
            x.assign(tf.clip_by_value(x + step * tf.sign(g), lo.reshape(1, 32, 32, 3), hi.reshape(1, 32, 32, 3)))
            step *= 0.95
    return best, best_x


def verivital(out, props, seed):
    """MATLAB's exportONNXNetwork form, node by node, from a torch model of the same function (for PGD)."""
    import torch
    import torch.nn as nn
    rng = np.random.default_rng(seed + 3)
    torch.manual_seed(seed + 3)
    instances = []
    for pool in ("avgpool", "maxpool"):
        mean_img = rng.uniform(0, 0.3, (1, 28, 28))
        conv = nn.Conv2d(1, 8, 3, 1, 1)
        bn = nn.BatchNorm2d(8)
        with torch.no_grad():
            bn.running_mean.uniform_(-0.2, 0.2)
            bn.running_var.uniform_(0.5, 1.5)
            bn.weight.uniform_(0.5, 1.5)
            bn.bias.uniform_(-0.2, 0.2)
        pooling = nn.AvgPool2d(2, 2) if pool == "avgpool" else nn.MaxPool2d(2, 2)
        fc = nn.Linear(8 * 14 * 14, 10)
        body = nn.Sequential(conv, bn, nn.ReLU(), pooling).double().eval()
        fc.double()
        # MATLAB flattens H x W x C column-major: element (c, h, w) sits at h + 14 w + 196 c, which is the
        # row-major flattening of the [C, W, H] transpose.
        fwd = lambda x, b=body, f=fc, m=torch.tensor(mean_img): f(
            b((x.reshape(1, 1, 28, 28) - m)).permute(0, 1, 3, 2).reshape(1, -1))[0]
        for softmax in (False, True):
            name = f"Convnet_{pool}" + ("_softmax" if softmax else "")
            write_matlab_onnx(os.path.join(out, name + ".onnx"), mean_img, conv, bn, pool, fc, softmax)
            if softmax:
                continue  # the same function: its properties are those of the net without the Softmax
            eps_list = (0.02, 0.04) if pool == "avgpool" else (0.004,)
            family = "verivital_" + pool
            for k in range(props):
                x0 = mnist_image(rng).reshape(-1)
                label = int(fwd(torch.tensor(x0)).argmax())
                eps = eps_list[k % len(eps_list)]
                lo, hi = np.clip(x0 - eps, 0, 1), np.clip(x0 + eps, 0, 1)
                inst = property_instance(out, family, name, k, x0, lo, hi, label, "or", 10, fwd, rng,
                                         f"Mnist property with label: {label}.")
                instances.append(inst)
                instances.append(dict(inst, onnx=name + "_softmax.onnx"))
    return instances


def write_matlab_onnx(path, mean_img, conv, bn, pool, fc, softmax):
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    f32 = lambda t: t.detach().numpy().astype(np.float32) if hasattr(t, "detach") else t.astype(np.float32)
    inits = {
        "imageinput_Mean": f32(mean_img),
        "conv_W": f32(conv.weight), "conv_B": f32(conv.bias),
        "batchnorm_scale": f32(bn.weight), "batchnorm_B": f32(bn.bias),
        "batchnorm_mean": f32(bn.running_mean), "batchnorm_var": f32(bn.running_var),
        "fc_W": f32(fc.weight), "fc_B": f32(fc.bias),
        "fc_Reshape_shape": np.array([1, -1], dtype=np.int64),
    }
    nodes = [
        helper.make_node("Sub", ["imageinput", "imageinput_Mean"], ["imageinput_Sub"], name="imageinput_Sub"),
        helper.make_node("Conv", ["imageinput_Sub", "conv_W", "conv_B"], ["conv"], name="conv", group=1,
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[1, 1], dilations=[1, 1]),
        helper.make_node("BatchNormalization", ["conv", "batchnorm_scale", "batchnorm_B", "batchnorm_mean",
                                                "batchnorm_var"], ["batchnorm"], name="batchnorm",
                         epsilon=float(bn.eps), spatial=1),
        helper.make_node("Relu", ["batchnorm"], ["relu"], name="relu"),
        helper.make_node("AveragePool" if pool == "avgpool" else "MaxPool", ["relu"], ["pool"], name=pool,
                         kernel_shape=[2, 2], pads=[0, 0, 0, 0], strides=[2, 2]),
        helper.make_node("Transpose", ["pool"], ["fc_Transpose"], name="fc_Transpose", perm=[0, 1, 3, 2]),
        helper.make_node("Reshape", ["fc_Transpose", "fc_Reshape_shape"], ["fc_Reshape"], name="fc_Reshape"),
        helper.make_node("Gemm", ["fc_Reshape", "fc_W", "fc_B"], ["fc"], name="fc", alpha=1.0, beta=1.0,
                         transA=0, transB=1),
    ]
    out = "fc"
    if softmax:
        nodes.append(helper.make_node("Softmax", ["fc"], ["softmax"], name="softmax", axis=1))
        out = "softmax"
    tensors = [numpy_helper.from_array(v, k) for k, v in inits.items()]
    inputs = [helper.make_tensor_value_info("imageinput", TensorProto.FLOAT, ["N", 1, 28, 28])]
    inputs += [helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)) for t in tensors]
    graph = helper.make_graph(nodes, "Convnet", inputs,
                              [helper.make_tensor_value_info(out, TensorProto.FLOAT, ["N", 10])], tensors)
    model = helper.make_model(graph, producer_name="MATLAB Deep Learning Toolbox Converter for ONNX Model Format",
                              opset_imports=[helper.make_opsetid("", 8)])
    model.ir_version = 3
    onnx.checker.check_model(model)
    onnx.save(model, path)


FAMILIES = {"eran": eran, "marabou": marabou, "verivital": verivital, "resnet": cifar_resnet}


# ---------------------------------------------------------------- running and checking


def parse_result(path):
    text = open(path).read().strip()
    first = text.split()[0] if text else "(empty)"
    values = {}
    for name, val in re.findall(r"\(([XY]_\d+)\s+([^\s()]+)\)", text):
        values[name] = float(val)
    return first, values


def run(args):
    instances = json.load(open(os.path.join(args.out, "instances.json")))
    script = os.path.join(HERE, "..", "vnncomp", "run_instance.sh")
    env = dict(os.environ, RELUOPT_BINARY=os.path.abspath(args.reluopt))
    for inst in instances:
        if args.only and inst["family"] not in args.only:
            continue
        timeout = args.timeout or inst["timeout"]
        result = os.path.join(args.out, inst["vnnlib"].replace(".vnnlib", "") + "__" + inst["onnx"] + ".result")
        load = os.getloadavg()[0]
        t0 = time.monotonic()
        proc = subprocess.run(["bash", script, "v1", inst["family"], os.path.join(args.out, inst["onnx"]),
                               os.path.join(args.out, inst["vnnlib"]), result, str(timeout)],
                              capture_output=True, text=True)
        wall = time.monotonic() - t0
        answer, _ = parse_result(result)
        inst.update(result=os.path.basename(result), answer=answer, wall=round(wall, 2), load=round(load, 1),
                    limit=timeout, stderr=proc.stderr.strip().splitlines()[-1:] if proc.stderr.strip() else [])
        print(f"{inst['family']:18s} {inst['onnx']:28s} {inst['vnnlib']:34s} {answer:8s} {wall:7.2f} s "
              f"load {load:.1f} {inst['stderr']}", flush=True)
        json.dump(instances, open(os.path.join(args.out, "instances.json"), "w"), indent=1)


def check(args):
    import onnxruntime as ort
    instances = json.load(open(os.path.join(args.out, "instances.json")))
    bad = 0
    for inst in instances:
        if "answer" not in inst:
            continue
        verdict = "-"
        if inst["answer"] == "unsat" and inst["pgd_point"] is not None:
            verdict, bad = f"WRONG: PGD found a counterexample (margin {inst['pgd_margin']:.3g})", bad + 1
        elif inst["answer"] == "unsat":
            verdict = f"PGD fails (best margin {inst['pgd_margin']:.3g} < 0)"
        elif inst["answer"] == "sat":
            verdict = check_sat(ort, args.out, inst)
            bad += verdict.startswith("WRONG")
        elif inst["pgd_point"] is not None:
            verdict = f"PGD finds a counterexample (margin {inst['pgd_margin']:.3g})"
        inst["check"] = verdict
        print(f"{inst['onnx']:28s} {inst['vnnlib']:34s} {inst['answer']:8s} {verdict}")
    json.dump(instances, open(os.path.join(args.out, "instances.json"), "w"), indent=1)
    print(f"{bad} wrong answers")
    return 1 if bad else 0


def check_sat(ort, out, inst):
    _, values = parse_result(os.path.join(out, inst["result"]))
    sess = ort.InferenceSession(os.path.join(out, inst["onnx"]))
    shape = [d if isinstance(d, int) else 1 for d in sess.get_inputs()[0].shape]
    x = np.array([values[f"X_{i}"] for i in range(int(np.prod(shape)))])
    lo, hi = box(os.path.join(out, inst["vnnlib"]), len(x))
    if np.any(x < lo) or np.any(x > hi):
        return f"WRONG: X outside the box by {max((lo - x).max(), (x - hi).max()):.3g}"
    y = sess.run(None, {sess.get_inputs()[0].name: x.reshape(shape).astype(np.float32)})[0].reshape(-1)
    m = violation(y.astype(np.float64), inst["label"], inst["form"])
    return (f"onnxruntime confirms (margin {m:.3g})" if m >= 0 else f"WRONG: onnxruntime's margin {m:.3g} < 0")


def box(path, n):
    lo, hi = np.full(n, -np.inf), np.full(n, np.inf)
    for op, i, v in re.findall(r"\(assert \((<=|>=) X_(\d+) ([^\s()]+)\)\)", open(path).read()):
        (hi if op == "<=" else lo)[int(i)] = float(v)
    return lo, hi


def make(args):
    import torch
    torch.set_num_threads(1)  # the machine is shared: one thread, and no oversubscription
    os.makedirs(args.out, exist_ok=True)
    instances = []
    for fam in args.families:
        t0 = time.monotonic()
        instances += FAMILIES[fam](args.out, args.props, args.seed)
        print(f"{fam}: {time.monotonic() - t0:.1f} s", flush=True)
    json.dump(instances, open(os.path.join(args.out, "instances.json"), "w"), indent=1)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("command", choices=["make", "run", "check"])
    p.add_argument("--out", required=True)
    p.add_argument("--props", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--families", nargs="+", default=list(FAMILIES))
    p.add_argument("--reluopt")
    p.add_argument("--timeout", type=float, help="instead of each family's own")
    p.add_argument("--only", nargs="+", help="run these families only")
    args = p.parse_args()
    return {"make": make, "run": run, "check": check}[args.command](args) or 0


if __name__ == "__main__":
    sys.exit(main())
