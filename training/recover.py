"""A fine-tunable ultralytics checkpoint rebuilt from a shipped detector's ONNX file.

Training checkpoints (``best.pt``) live in the git-ignored ``datasets/generated``, so a fresh
checkout has only the shipped ``models/*.onnx``. The ONNX export keeps every weight under its
PyTorch name, with each convolution's batch norm folded into it. Rebuilding the model from its
yaml and putting the folded weights back (the convolution's weights as they are, the batch norm
as the identity plus the folded bias: scale 1, mean 0, variance ``1 - eps``) gives a model that
computes exactly what the ONNX file does and trains like any checkpoint. The end-to-end head
(``one2one_*``, not exported) starts as a copy of the exported head, as ultralytics builds it.

    python -m training.recover models/domino_detector.onnx --out best.pt [--fit-norms PHOTOS]

Fine-tuning trains with batch norms normalising by the batch, which the identity norms do not
survive (the folded scale is lost): ``fit_norms`` gives them the statistics of a sample of the
training photos first, so that training starts from the shipped detector.
"""

from __future__ import annotations

import argparse
import ast
from datetime import datetime
from pathlib import Path

import numpy as np


def _onnx_weights(path: Path) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(path))
    weights = {init.name: numpy_helper.to_array(init) for init in model.graph.initializer}
    return weights, {prop.key: prop.value for prop in model.metadata_props}


def rebuild(onnx_path: Path):
    """The ultralytics model (in train mode, float32) whose weights are ``onnx_path``'s.

    Importing ultralytics patches ``PIL.Image.open`` for the whole process, so this is for
    training processes, never the app's."""
    weights, meta = _onnx_weights(onnx_path)
    task = meta.get("task")
    if task is None or "names" not in meta:
        raise ValueError(f"{onnx_path}: not an ultralytics export (no task or class names)")
    names = ast.literal_eval(meta["names"])
    import torch
    from ultralytics.nn.modules import Conv
    from ultralytics.nn.tasks import DetectionModel, OBBModel

    model: DetectionModel  # an OBBModel is one
    if task == "obb":
        model = OBBModel("yolo26n-obb.yaml", nc=len(names), verbose=False)
    elif task == "detect":
        model = DetectionModel("yolo26n.yaml", nc=len(names), verbose=False)
    else:
        raise ValueError(f"{onnx_path}: task {task!r} is not a detector this can rebuild")
    used: set[str] = set()
    with torch.no_grad():
        for name, module in model.named_modules():
            if isinstance(module, Conv) and hasattr(module, "bn") and "one2one" not in name:
                weight, bias = f"{name}.conv.weight", f"{name}.conv.bias"
                module.conv.weight.copy_(torch.from_numpy(weights[weight].copy()))
                module.bn.weight.fill_(1.0)
                module.bn.bias.copy_(torch.from_numpy(weights[bias].copy()))
                module.bn.running_mean.zero_()
                module.bn.running_var.fill_(1.0 - module.bn.eps)
                used.update((weight, bias))
        state = model.state_dict()
        for key, value in weights.items():
            if key in used or key not in state:
                continue
            if tuple(state[key].shape) != value.shape:
                raise ValueError(
                    f"{onnx_path}: {key} is {value.shape}, the model's {state[key].shape}"
                )
            state[key].copy_(torch.from_numpy(value.copy()))
            used.add(key)
        # ultralytics sets model (an nn.Sequential) and args from a helper function, so they are
        # typed by torch's Module.__getattr__ (a Tensor or a Module)
        head = model.model[-1]  # type: ignore[index]
        for branch in ("cv2", "cv3", "cv4"):
            copy = getattr(head, f"one2one_{branch}", None)
            if copy is not None:
                copy.load_state_dict(getattr(head, branch).state_dict())
    unused = [key for key in weights if key not in used and key.startswith("model.")]
    if unused:
        raise ValueError(f"{onnx_path}: weights the rebuilt model has no place for: {unused[:5]}")
    model.names = names
    model.args = {"task": task, "imgsz": ast.literal_eval(meta["imgsz"])[0]}  # type: ignore[assignment]
    return model


def _letterboxed(path: Path, size: int) -> np.ndarray:
    """A photo as the detector's training sees it: RGB, fitted into ``size`` x ``size`` on
    grey (114), 0-1, CHW."""
    import cv2

    bgr = cv2.imread(str(path))
    if bgr is None:
        raise ValueError(f"{path}: not an image")
    scale = size / max(bgr.shape[:2])
    h, w = round(bgr.shape[0] * scale), round(bgr.shape[1] * scale)
    canvas = np.full((size, size, 3), 114, np.uint8)
    top, left = (size - h) // 2, (size - w) // 2
    canvas[top : top + h, left : left + w] = cv2.resize(bgr, (w, h))
    return canvas[:, :, ::-1].transpose(2, 0, 1).astype(np.float32) / 255.0


def fit_norms(model, images: list[Path], size: int, batch: int = 8) -> None:
    """Give ``rebuild``'s identity batch norms the statistics of ``images`` (a sample of the
    training photos), so that training starts from the shipped detector: in training mode a
    batch norm normalises by the batch, which undoes the folded convolution's scale unless
    its own scale and shift put it back. Each norm's mean and variance become those of its
    convolution's output on the sample, its scale the standard deviation and its shift the
    mean plus the folded bias; the model still computes what the ONNX file does (evaluation
    mode), and nearly so in training mode."""
    if not images:
        raise ValueError("fit_norms: no photos to fit the batch norms to")
    import torch
    from ultralytics.nn.modules import Conv

    convs = [
        m
        for name, m in model.named_modules()
        if isinstance(m, Conv) and hasattr(m, "bn") and "one2one" not in name
    ]
    sums: dict[int, list] = {}

    def collect(index: int):
        def hook(_module, _inputs, output):
            values = output.detach().double().transpose(0, 1).reshape(output.shape[1], -1)
            total = sums.setdefault(index, [0, 0.0, 0.0])
            total[0] += values.shape[1]
            total[1] = total[1] + values.sum(1)
            total[2] = total[2] + (values * values).sum(1)

        return hook

    handles = [conv.conv.register_forward_hook(collect(i)) for i, conv in enumerate(convs)]
    model.eval()
    try:
        with torch.no_grad():
            for start in range(0, len(images), batch):
                chunk = [_letterboxed(path, size) for path in images[start : start + batch]]
                model(torch.from_numpy(np.stack(chunk)))
    finally:
        for handle in handles:
            handle.remove()
    with torch.no_grad():
        for index, conv in enumerate(convs):
            count, total, squares = sums[index]
            mean = total / count
            var = (squares / count - mean * mean).clamp(min=0.0)
            bn = conv.bn
            bn.running_mean.copy_(mean.float())
            bn.running_var.copy_(var.float())
            bn.weight.copy_(torch.sqrt(var + bn.eps).float())
            bn.bias.add_(mean.float())


def save_checkpoint(model, path: Path, source: Path) -> Path:
    """Write ``model`` as an ultralytics checkpoint that ``YOLO(path)`` and training load."""
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save(
        {
            "date": datetime.now().isoformat(),
            "version": "rebuilt",
            "model": model,
            "ema": None,
            "train_args": {"task": model.args["task"], "rebuilt_from": str(source)},
            "epoch": -1,
        },
        path,
    )
    return path


def raw_output(model, image: np.ndarray, batch_norms_training: bool = False) -> np.ndarray:
    """The exported head's raw output for an Nx3xHxW input, as the ONNX file gives it; with
    ``batch_norms_training``, every batch norm normalising by the batch, as in training (their
    running statistics are kept as they were)."""
    import torch

    norms = [m for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    # a YOLO model's batch norms all track running statistics (torch types them "or None")
    saved = [(m.running_mean.clone(), m.running_var.clone()) for m in norms]  # type: ignore[union-attr]
    head = model.model[-1]
    flags = head.end2end, head.export, head.format
    model.eval()
    if batch_norms_training:
        for norm in norms:
            norm.train()
    head.end2end, head.export, head.format = False, True, "onnx"
    try:
        with torch.no_grad():
            out = model(torch.from_numpy(image))
    finally:
        head.end2end, head.export, head.format = flags
        if batch_norms_training:
            for norm, (mean, var) in zip(norms, saved, strict=True):
                norm.eval()
                norm.running_mean.copy_(mean)  # type: ignore[union-attr]  # tracked, as above
                norm.running_var.copy_(var)  # type: ignore[union-attr]  # tracked, as above
    return (out[0] if isinstance(out, (list, tuple)) else out).numpy()


def training_mode_agreement(model, images: list[Path], size: int) -> float:
    """Correlation of the head's scores with every batch norm in training mode (normalising
    by the batch of ``images``) and in evaluation mode: how nearly a fine-tune starts from
    the model it is given (1: exactly)."""
    batch = np.stack([_letterboxed(path, size) for path in images])
    want = raw_output(model, batch)[:, 4:]
    got = raw_output(model, batch, batch_norms_training=True)[:, 4:]
    return float(np.corrcoef(got.ravel(), want.ravel())[0, 1])


def rebuild_reader(onnx_path: Path, spec):
    """The crop reader (``training.classifier.build_net(spec)``) whose weights are
    ``onnx_path``'s: each convolution's folded weights and bias put back, its batch norm the
    identity (scale ``sqrt(1 + eps)``, mean 0, variance 1). Fine-tune it with the batch norms
    frozen (``freeze_norms``): in training mode they would normalise by the batch instead."""
    import onnx
    import torch
    from onnx import numpy_helper

    from training.classifier import build_net

    model = onnx.load(str(onnx_path))
    weights = {init.name: numpy_helper.to_array(init) for init in model.graph.initializer}
    convs = [node for node in model.graph.node if node.op_type == "Conv"]
    net = build_net(spec)
    blocks = list(net.features)
    if len(convs) != len(blocks):
        raise ValueError(f"{onnx_path}: {len(convs)} convolutions, the reader has {len(blocks)}")
    state = net.state_dict()
    for index, node in enumerate(convs):
        weight, bias = (weights[name] for name in node.input[1:3])
        norm = blocks[index][1]
        state[f"features.{index}.0.weight"] = torch.from_numpy(weight.copy())
        state[f"features.{index}.1.weight"] = torch.full_like(
            state[f"features.{index}.1.weight"], float(np.sqrt(1.0 + norm.eps))
        )
        state[f"features.{index}.1.bias"] = torch.from_numpy(bias.copy())
        state[f"features.{index}.1.running_mean"].zero_()
        state[f"features.{index}.1.running_var"].fill_(1.0)
    for name in state:
        if not name.startswith("features.") and name in weights:
            state[name] = torch.from_numpy(weights[name].copy())
    missing = [n for n in state if not n.startswith("features.") and n not in weights]
    missing = [n for n in missing if not n.endswith("num_batches_tracked")]
    if missing:
        raise ValueError(f"{onnx_path}: no weights for {missing}")
    net.load_state_dict(state)
    return net


def freeze_norms(net) -> None:
    """Put ``net``'s batch norms in evaluation mode (statistics kept), after ``net.train()``."""
    from torch import nn

    for module in net.modules():
        if isinstance(module, nn.BatchNorm2d):
            module.eval()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("onnx", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument(
        "--fit-norms", type=Path, help="a folder of training photos to fit the batch norms to"
    )
    args = parser.parse_args(argv)
    model = rebuild(args.onnx)
    if args.fit_norms:
        photos = sorted(args.fit_norms.glob("*.jpg"))[:32]
        size = model.args["imgsz"]
        before = training_mode_agreement(model, photos[:8], size)
        fit_norms(model, photos, size)
        after = training_mode_agreement(model, photos[:8], size)
        print(f"training-mode scores' correlation: identity {before:.3f}, fitted {after:.3f}")
    from vision.detector import open_session

    session = open_session(args.onnx)
    shape = session.get_inputs()[0].shape
    image = np.random.default_rng(0).random((1, 3, shape[2], shape[3]), dtype=np.float32)
    want = session.run(None, {session.get_inputs()[0].name: image})[0]
    got = raw_output(model, image)
    boxes, scores = np.abs(want - got)[:, :4].max(), np.abs(want - got)[:, 4:].max()
    print(
        f"max |ONNX - rebuilt| on {want.shape}: "
        f"boxes {boxes:.2e} px, scores and angles {scores:.2e}"
    )
    model.train()
    print(f"wrote {save_checkpoint(model, args.out, args.onnx)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
