"""One reader ONNX file that averages the outputs of several reader ONNX files.

A reader trained on other data (another recipe, another generator) can join the shipped one
without the shipped one's PyTorch checkpoint, which a fresh checkout does not have:

    python -m training.merge_readers a.onnx b.onnx --out merged.onnx

Every input file must take the same input (``crops``, N x 3 x S x S) and give the same outputs
(names and shapes); the merged file gives each output averaged over the files, with the first
file's input and output names, so the recogniser reads it as it reads any reader.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def merge_readers(paths: list[Path], out: Path) -> None:
    import onnx
    from onnx import compose, helper

    models = [onnx.load(str(p)) for p in paths]
    first = models[0]
    input_name = first.graph.input[0].name
    output_names = [o.name for o in first.graph.output]
    for path, model in zip(paths, models, strict=True):
        if [o.name for o in model.graph.output] != output_names:
            raise ValueError(f"{path}: outputs differ from {paths[0]}'s")
        if model.graph.input[0].name != input_name:
            raise ValueError(f"{path}: input differs from {paths[0]}'s")
    opset = max(o.version for m in models for o in m.opset_import if o.domain in ("", "ai.onnx"))
    prefixed = []
    for k, model in enumerate(models):
        model = (
            onnx.version_converter.convert_version(model, opset)
            if _opset(model) != opset
            else model
        )
        prefixed.append(compose.add_prefix(model, prefix=f"m{k}_"))
    nodes, inits, value_info = [], [], []
    for model in prefixed:
        # Every member reads the one shared input.
        for node in model.graph.node:
            node.input[:] = [
                input_name if i == model.graph.input[0].name else i for i in node.input
            ]
        nodes.extend(model.graph.node)
        inits.extend(model.graph.initializer)
        value_info.extend(model.graph.value_info)
    scale = helper.make_tensor("merge_scale", onnx.TensorProto.FLOAT, [], [1.0 / len(models)])
    inits.append(scale)
    outputs = []
    for name, template in zip(output_names, first.graph.output, strict=True):
        summed = f"{name}_sum"
        nodes.append(
            helper.make_node("Sum", [f"m{k}_{name}" for k in range(len(models))], [summed])
        )
        nodes.append(helper.make_node("Mul", [summed, "merge_scale"], [name]))
        outputs.append(template)
    graph = helper.make_graph(nodes, "merged_reader", [first.graph.input[0]], outputs, inits)
    graph.value_info.extend(value_info)
    merged = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    merged.ir_version = first.ir_version
    onnx.checker.check_model(merged)
    out.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(merged, str(out))


def _opset(model) -> int:
    return max(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("readers", type=Path, nargs="+")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    merge_readers(args.readers, args.out)
    print(f"wrote {args.out} ({len(args.readers)} readers averaged)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
