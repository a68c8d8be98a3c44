"""A kind's detector quantised to 8-bit integers, to run faster on a CPU.

    python -m training.quantise --kind cards [--models DIR] [--scenes N]

Static quantisation by onnxruntime (QOperator format): weights int8 per output channel,
activations uint8, each activation's range the moving average of its min and max over the
detector's own inputs while the pipeline (float detector) reads rendered calibration scenes.
The blocks where quantising moved the detector's scores most stay in floats: the first three
(full-resolution features) and the head. The result names its float original's SHA-256 in its
metadata; the recogniser runs it only beside that very file (``KindSettings.
quantised_detector_file``), so a detector trained since runs in floats until quantised again.
How the recipe was chosen and what it scores: docs/experiments/cards.md, "Speed".
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np


@dataclass(frozen=True)
class Quantisation:
    float_blocks: tuple[int, ...]  # the network's blocks (ONNX nodes "/model.N/...") kept float
    renderers: tuple[str, ...]  # ``training.calibrate.renderer`` specs, used in turn
    scenes: int  # calibration scenes rendered (each gives the detector several inputs)
    seed: int


QUANTISATIONS: dict[str, Quantisation] = {
    # Chosen on the detector's scores for 62 inputs of 12 other rendered scenes (seed 4702):
    # of the float blocks tried, 0-2 with the head flipped fewest boxes across the pipeline's
    # score threshold; the moving average halved those flips against the plain min and max.
    "cards": Quantisation(
        float_blocks=(0, 1, 2, 23),
        renderers=(
            *(f"training.calibrate:card_scene@{look}" for look in (1, 2, 3, 4, 5)),
            "training.calibrate:card_fans_scene",
            "training.calibrate:card_letters_scene@pl",
            "training.calibrate:card_dark_scene@en",
        ),
        scenes=24,
        seed=4701,
    ),
}


class _Recorder:
    """An onnxruntime session that keeps every input it is run on."""

    def __init__(self, session, inputs: list[np.ndarray]):
        self._session, self._inputs = session, inputs

    def run(self, outputs, feeds):
        self._inputs.append(next(iter(feeds.values())).copy())
        return self._session.run(outputs, feeds)

    def __getattr__(self, name):
        return getattr(self._session, name)


def detector_inputs(
    kind: str, models_dir: Path, renderers: Sequence[str], scenes: int, seed: int
) -> np.ndarray:
    """The float detector's inputs (N x 3 x H x W) while the pipeline reads ``scenes``
    rendered scenes: every pass it makes (whole photo, tiles, zoomed out, turned, inverted)."""
    from training.calibrate import rendered_scenes
    from vision.pipeline import Recogniser, kind_settings

    # the float detector, even beside a quantised one
    float_only = Recogniser(replace(kind_settings(kind), quantised_detector_file=None), models_dir)
    inputs: list[np.ndarray] = []
    float_only.detector.session = _Recorder(float_only.detector.session, inputs)
    for _name, image, _truth, _family in rendered_scenes(kind, scenes, seed, renderers):
        float_only.recognise(image, channels="bgr")
    return np.concatenate(inputs)


def quantise(float_path: Path, out: Path, inputs: np.ndarray, float_blocks: Sequence[int]) -> None:
    """Write ``float_path`` quantised to ``out``, its activations' ranges from ``inputs``."""
    import onnx
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    from vision.detector import QUANTISED_FROM, file_sha256

    class Inputs(CalibrationDataReader):
        def __init__(self, name: str):
            self._feeds = iter({name: x[None]} for x in inputs)

        def get_next(self):
            return next(self._feeds, None)

    with tempfile.TemporaryDirectory() as work:
        prepared = Path(work) / "prepared.onnx"
        quant_pre_process(str(float_path), str(prepared))
        graph = onnx.load(str(prepared)).graph
        prefixes = tuple(f"/model.{block}/" for block in float_blocks)
        in_floats = [node.name for node in graph.node if node.name.startswith(prefixes)]
        quantised = Path(work) / "quantised.onnx"
        quantize_static(
            str(prepared),
            str(quantised),
            Inputs(graph.input[0].name),
            quant_format=QuantFormat.QOperator,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            per_channel=True,
            nodes_to_exclude=in_floats,
            calibrate_method=CalibrationMethod.MinMax,
            extra_options={"CalibMovingAverage": True},
        )
        model = onnx.load(str(quantised))
    original = {prop.key: prop.value for prop in onnx.load(str(float_path)).metadata_props}
    original[QUANTISED_FROM] = file_sha256(float_path)
    del model.metadata_props[:]
    for key, value in original.items():
        model.metadata_props.add(key=key, value=value)
    out.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(out))


def main(argv: list[str] | None = None) -> int:
    from vision.pipeline import MODELS_DIR, kind_settings

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kind", choices=sorted(QUANTISATIONS), required=True)
    parser.add_argument("--models", type=Path, default=MODELS_DIR, help="the models' folder")
    parser.add_argument("--scenes", type=int, help="calibration scenes (default: the recipe's)")
    args = parser.parse_args(argv)
    recipe, settings = QUANTISATIONS[args.kind], kind_settings(args.kind)
    scenes = args.scenes or recipe.scenes
    inputs = detector_inputs(args.kind, args.models, recipe.renderers, scenes, recipe.seed)
    out = args.models / settings.quantised_detector_file
    quantise(args.models / settings.detector_file, out, inputs, recipe.float_blocks)
    print(f"{out}: quantised on {len(inputs)} detector inputs of {scenes} rendered scenes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
