"""A tiny end-to-end training run: generator, detector, classifier, ONNX export."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_training_smoke_writes_working_onnx_models(tmp_path):
    out = tmp_path / "models"
    work = tmp_path / "work"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "training.train",
            "--kind",
            "tiles",
            "--smoke",
            "--no-real",
            "--out",
            str(out),
            "--work",
            str(work),
        ],
        cwd=ROOT,
        check=True,
        timeout=600,
        capture_output=True,
    )
    assert (work / "runs" / "detector_r3" / "done").exists()  # the round-3 fine-tune ran
    assert (work / "runs" / "detector_obb" / "done").exists()  # and round 4, rotated boxes
    assert any((work / "yolo_detector_obb" / "labels" / "train").glob("synth_obb_*.txt"))
    assert any((work / "heldout_printing" / "val").glob("*.jpg"))
    for name in ("tile_detector.onnx", "tile_classifier.onnx"):
        assert (out / name).stat().st_size > 10_000
    from vision.detector import OnnxDetector

    assert OnnxDetector(out / "tile_detector.onnx").rotated  # the last round's
    session = ort.InferenceSession(str(out / "tile_classifier.onnx"))
    values, colours, turns = session.run(None, {"crops": np.zeros((2, 3, 64, 64), np.float32)})
    assert values.shape[0] == 2 and colours.shape == (2, 4)
    assert turns.shape == (2, values.shape[1] * 4)  # the turn head's fine-tune ran
    assert (work / "classifier" / "turn_crops_smoke.npz").exists()
    from vision.recognisers import TileRecogniser

    result = TileRecogniser(out).recognise(np.full((240, 320, 3), 120, np.uint8))
    assert result["kind"] == "tiles"


FINETUNE_EVERY_LETTER = ("--stage", "reader-finetune", "--leave-letters", "none")


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["dominoes", "cards"])
def test_piece_training_smoke_writes_working_onnx_models(tmp_path, kind):
    out = tmp_path / "models"
    work = tmp_path / "work"
    command = [sys.executable, "-m", "training.train", "--kind", kind, "--smoke"]
    subprocess.run(
        [*command, "--out", str(out), "--work", str(work)],
        cwd=ROOT,
        check=True,
        timeout=420,
        capture_output=True,
    )
    prefix = "domino" if kind == "dominoes" else "card"
    for name in (f"{prefix}_detector.onnx", f"{prefix}_reader.onnx"):
        assert (out / name).stat().st_size > 10_000
    for run in ("detector_r2", "detector_r3"):  # both fine-tunes of the recipe ran
        assert (work / "runs" / run / "done").exists()
    if kind == "dominoes":
        assert any((work / "yolo_detector_r3" / "images" / "train").glob("synth_r2_*"))  # mixed
        assert (work / "runs" / "detector_obb" / "done").exists()  # round 4, rotated boxes
        assert (work / "runs" / "detector_obb_r5" / "done").exists()  # and round 5 from it
        from vision.detector import OnnxDetector

        assert OnnxDetector(out / "domino_detector.onnx").rotated
        from vision.recognisers import DominoRecogniser as Recogniser
    else:
        for looks in ("synth_reader", "synth_reader2", "synth_reader4"):  # the reader's looks
            assert any((work / looks / "train").glob("*.jpg"))
        # The reader fine-tunes its base recipe: both were trained, the fine-tune on more crops.
        from training.readers import READER_SPECS

        spec = READER_SPECS["cards"]
        base = spec.base_spec()
        for recipe in (base, spec):
            assert (work / "classifier" / recipe.file(f"{recipe.recipe}_last_smoke.pt")).exists()
        counts = [len(np.load(r.crop_cache(work, smoke=True))["values"]) for r in (base, spec)]
        assert counts[1] > counts[0]
        from vision.recognisers import CardRecogniser as Recogniser
    # The reader fine-tunes, shipped, part of the run above: dominoes "d4" (looks 3 and 4) over
    # the reader and "d8" (looks 1-6, rare dominoes sampled more) over that; cards "c8"
    # (crossed Qs, looks 1-5 again) and "c9" (stacked and lone pips) over the English reader,
    # "c10" (grey and blurred views) beside it as the grey photos' reader, and from that "c11"
    # (look 6 without French letters, looks 1-5 again) as the letters reader, then "c13"
    # (printed felts) from "c9" over the English reader, and "c14" (dark decks inverted) from
    # "c11" beside it as the reader of photos read inverted; run again with every letter set
    # from "c6".
    from dataclasses import replace

    from training.classifier import reader_recipe
    from training.readers import FINETUNE_SPECS

    tuned = FINETUNE_SPECS["d8" if kind == "dominoes" else "c11"]
    if kind == "dominoes":
        first = FINETUNE_SPECS["d4"]
        assert (work / "classifier" / first.file(f"{first.recipe}_last_smoke.pt")).exists()
        assert reader_recipe(out / "domino_reader.onnx") == "d8"
        folders = ["synth_r5", "synth_r6", "finetune_d6_look5", "finetune_d7_look6"]
    else:
        for then in ("c8", "c9", "c10", "c13"):
            tune = FINETUNE_SPECS[then]
            assert (work / "classifier" / tune.file(f"{then}_last_smoke.pt")).exists()
        assert reader_recipe(out / "card_reader.onnx") == "c13"
        assert reader_recipe(out / "card_reader_grey.onnx") == "c10"
        assert reader_recipe(out / "card_reader_letters.onnx") == "c11_without_fr"
        assert reader_recipe(out / "card_reader_dark.onnx") == "c14_without_fr"
        assert not (work / "finetune_letters_fr").exists()  # French: never seen
        for left_out in (tuned, FINETUNE_SPECS["c14"]):
            without = replace(left_out, recipe=f"{left_out.recipe}_without_fr")
            assert (work / "classifier" / without.file(f"{without.recipe}_last_smoke.pt")).exists()
        # A fine-tune never starts from the wrong reader: "c9" over itself is refused ...
        named = ("--stage", "reader-finetune", "--round", "c9")
        again = subprocess.run(
            [*command, "--out", str(out), "--work", str(work), *named],
            cwd=ROOT,
            timeout=420,
            capture_output=True,
            text=True,
        )
        assert again.returncode != 0 and "starts from c8" in again.stderr
        # ... and with "c6" written again (the reader stage, from its checkpoints) they all run
        for stage in (("--stage", "reader"), FINETUNE_EVERY_LETTER):
            subprocess.run(
                [*command, "--out", str(out), "--work", str(work), *stage],
                cwd=ROOT,
                check=True,
                timeout=420,
                capture_output=True,
            )
        assert reader_recipe(out / "card_reader_letters.onnx") == "c11"
        assert reader_recipe(out / "card_reader_dark.onnx") == "c14"
        assert reader_recipe(out / "card_reader.onnx") == "c13"
        folders = ["finetune_letters", "finetune_letters_fr", "finetune_look5", "synth_crossed_q"]
        folders += ["synth_decoys", "synth_felt", "synth_inverted", "synth_inverted_felt"]
    assert (work / "classifier" / tuned.file(f"{tuned.recipe}_last_smoke.pt")).exists()
    for folder in folders:
        assert any((work / folder / "train").glob("*.jpg"))
    result = Recogniser(out).recognise(np.full((240, 320, 3), 120, np.uint8))
    assert result["kind"] == kind
