#!/usr/bin/env python3
"""Prints the include graph of src/ between layers and checks it against the layering.

Each folder of src/ is a layer (src/layers.txt, from the bottom up); a public header in include/reluopt/ belongs
to the layer that owns its concept (PUBLIC_HEADER_LAYER). A layer may include only itself and the layers
src/layers.txt lists for it, so the graph has no cycle and every arrow points down. Exits 1 when an include
breaks that, printing each offending #include (ctest include_graph).

    python3 scripts/include_graph.py            # the folder graph, then the violations
    python3 scripts/include_graph.py --dot      # the folder graph in Graphviz dot
"""
import argparse
import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

def read_layers(path=ROOT / "src" / "layers.txt"):
    """src/layers.txt: the layers from the bottom up, each with the layers below it that it may use. Exits when a
    layer uses one that is not listed before it (which is what keeps the graph free of cycles)."""
    allowed = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        layer, _, below = line.partition(":")
        for other in below.split():
            if other not in allowed:
                raise SystemExit(f"include_graph: {path.name}: {layer} uses {other}, which is not below it")
        allowed[layer.strip()] = set(below.split())
    return allowed


ALLOWED = read_layers()

# The layer of each public header of include/reluopt (and the generated version.h): the layer that owns its
# concept. Plain types of the problem, the options and the result are core's; readers and writers io's.
PUBLIC_HEADER_LAYER = {
    "conv2d": "core", "domain": "core", "error": "core", "network": "core", "objective": "core", "options": "core",
    "result": "core", "run_control": "core", "version": "core", "vnnlib": "core",
    "model": "core",
    "model_io": "io", "json_io": "io", "evt_json": "io",
    "evt": "stats",
    "solve": "algorithms", "verify": "algorithms",
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of_header(name):
    """The layer of an included path ("reluopt/x.h" or "folder/x.h"), or None when it is not the project's."""
    head, _, rest = name.partition("/")
    if head == "reluopt":
        stem = Path(rest).stem
        if stem not in PUBLIC_HEADER_LAYER:
            raise SystemExit(f"include_graph: public header {name} has no layer in PUBLIC_HEADER_LAYER")
        return PUBLIC_HEADER_LAYER[stem]
    return head if head in ALLOWED else None


def files_by_layer():
    for folder in sorted(p for p in (ROOT / "src").iterdir() if p.is_dir()):
        if folder.name not in ALLOWED:
            raise SystemExit(f"include_graph: src/{folder.name}/ is not a layer of src/layers.txt")
    for path in sorted((ROOT / "src").rglob("*")):
        if path.suffix in (".h", ".cc") and path.parent.name in ALLOWED:
            yield path.parent.name, path
    for path in sorted((ROOT / "include" / "reluopt").glob("*.h")):
        yield layer_of_header("reluopt/" + path.name), path


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dot", action="store_true", help="print the folder graph in Graphviz dot")
    args = parser.parse_args()
    edges = defaultdict(int)
    violations = []
    for layer, path in files_by_layer():
        for included in INCLUDE.findall(path.read_text(encoding="utf-8")):
            target = layer_of_header(included)
            if target is None or target == layer:
                continue
            edges[(layer, target)] += 1
            if target not in ALLOWED[layer]:
                violations.append(f"{path.relative_to(ROOT)}: {layer} -> {target} (#include \"{included}\")")
    if args.dot:
        print("digraph layers {")
        for (a, b), n in sorted(edges.items()):
            bad = "" if b in ALLOWED[a] else ' [color=red]'
            print(f'  "{a}" -> "{b}" [label={n}]{bad};')
        print("}")
    else:
        for (a, b), n in sorted(edges.items()):
            mark = "" if b in ALLOWED[a] else "   <-- not allowed"
            print(f"{a:12} -> {b:12} {n:3} includes{mark}")
    if violations:
        print(f"\n{len(violations)} includes break the layering:", file=sys.stderr)
        for line in violations:
            print("  " + line, file=sys.stderr)
        return 1
    print("\nno cycle, no upward include")
    return 0


if __name__ == "__main__":
    sys.exit(main())
