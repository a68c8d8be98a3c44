"""Single-domino crops cut from a generated scene file."""

from __future__ import annotations

import json

import cv2

from datasets.dominoes_synth import render_test_layout
from datasets.piece_crops import cut_crops


def test_crops_are_upright_single_pieces_with_their_labels(tmp_path):
    image, labels = render_test_layout([["2-5", "0-9", "6-6"]], gap=30, seed=2)
    scenes = tmp_path / "scenes"
    scenes.mkdir()
    cv2.imwrite(str(scenes / "00000.jpg"), image)
    meta = {"seed": 2, "size": [image.shape[1], image.shape[0]], "pieces": labels}
    (scenes / "00000.json").write_text(json.dumps(meta))

    written = cut_crops(scenes, tmp_path / "crops", seed=1, count=10)

    assert written == 3
    for i, (label, _box) in enumerate(labels):
        crop = cv2.imread(str(tmp_path / "crops" / f"{i:05d}.jpg"))
        scene = json.loads((tmp_path / "crops" / f"{i:05d}.json").read_text())
        assert crop.shape[0] > crop.shape[1]  # upright
        assert scene["pieces"] == [[label, [0, 0, crop.shape[1], crop.shape[0]]]]
