"""Rotated-box (OBB) training labels for the tile detector."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from datasets.tiles_synth import render_scene_with_quads
from training.yolo_data import obb_line, real_quad


def corners_of(line: str, w: int, h: int) -> np.ndarray:
    cls, *values = line.split()
    assert cls == "0"
    return np.array(values, float).reshape(4, 2) * [w, h]


def test_a_tile_inside_the_photo_keeps_its_corners():
    quad = cv2.boxPoints(((100, 80), (40, 60), 30))
    corners = corners_of(obb_line(quad, 200, 160), 200, 160)
    assert cv2.contourArea(corners.astype(np.float32)) == pytest.approx(2400, rel=0.01)
    nearest = np.linalg.norm(corners[:, None] - quad[None], axis=2).min(1)
    assert nearest.max() < 0.05


def test_a_tile_cut_by_the_edge_is_its_visible_part_and_one_outside_is_dropped():
    quad = cv2.boxPoints(((0, 80), (40, 60), 0))  # half of it left of the photo
    corners = corners_of(obb_line(quad, 200, 160), 200, 160)
    assert corners[:, 0].min() == pytest.approx(0) and corners[:, 0].max() == pytest.approx(20)
    assert obb_line(cv2.boxPoints(((-50, 80), (40, 60), 0)), 200, 160) is None


def test_rendered_quads_match_the_scenes_boxes():
    img, labels, quads = render_scene_with_quads(7, size=(640, 480))
    assert len(quads) == len(labels) > 0
    h, w = img.shape[:2]
    for (_label, box), quad in zip(labels, quads, strict=True):
        q = np.clip(np.array(quad), 0, [w, h])
        assert np.allclose([*q.min(0), *q.max(0)], box, atol=0.5)
        assert obb_line(quad, w, h) is not None


@pytest.mark.parametrize("angle", [0, 20, -30])
def test_a_real_tiles_corners_are_recovered_from_its_box_and_edges(angle):
    image = np.full((300, 300, 3), 60, np.uint8)
    truth = cv2.boxPoints(((150, 150), (70, 96), angle))
    cv2.fillConvexPoly(image, truth.round().astype(np.int32), (235, 235, 235))
    box = [*truth.min(0), *truth.max(0)]
    quad = real_quad(image, box)
    assert cv2.contourArea(quad) == pytest.approx(70 * 96, rel=0.08)
    dist = np.linalg.norm(quad[:, None] - truth[None], axis=2).min(1)
    assert dist.max() < 6


def _domino_set(folder: str, look: int):
    from training.recipes import SceneSet

    return SceneSet(folder, f"dominoes_look{look}", 1, 1, 0)


def test_a_weighted_up_scene_set_is_linked_that_many_times_in_training_only(tmp_path):
    from training.scenes import generate
    from training.yolo_data import build_dataset

    first, second = _domino_set("synth", 1), _domino_set("synth_r2", 2)
    generate(tmp_path, 1, 1, 5, procs=1, name="synth", renderer=first.renderer, quiet=True)
    generate(tmp_path, 1, 0, 6, procs=1, name="synth_r2", renderer=second.renderer, quiet=True)
    train = [(first, 3), (second, 1)]
    root = build_dataset(tmp_path, "det", train, [first, second], "domino", rotated=True).parent

    def names(sub: str, split: str) -> list[str]:
        return sorted(p.name for p in (root / sub / split).iterdir())

    assert names("images", "train") == [
        "synth_00000.jpg",
        "synth_copy1_00000.jpg",
        "synth_copy2_00000.jpg",
        "synth_r2_00000.jpg",
    ]
    assert names("labels", "train") == [n.replace(".jpg", ".txt") for n in names("images", "train")]
    assert names("images", "val") == ["synth_00000.jpg"]
    label = (root / "labels" / "train" / "synth_00000.txt").read_text()
    assert label and (root / "labels" / "train" / "synth_copy2_00000.txt").read_text() == label
    assert len(label.split("\n")[0].split()) == 9  # class and four corners


def test_more_copies_than_can_be_named_are_refused(tmp_path):
    from training.yolo_data import build_dataset

    with pytest.raises(ValueError, match="at most 9 copies"):
        build_dataset(tmp_path, "det", [(_domino_set("synth", 1), 10)], [], "domino")


def test_a_domino_scene_stored_with_its_corners_labels_as_one_rendered_again(tmp_path):
    """Domino scenes keep their corners, so that their rotated-box labels need no second
    render; a scene stored without them (an older set) is rendered again from its seed."""
    import json

    from training.scenes import generate
    from training.yolo_data import build_dataset

    look4 = _domino_set("synth_r6", 4)
    generate(tmp_path, 1, 0, 10, procs=1, name="synth_r6", renderer=look4.renderer, quiet=True)
    meta_path = tmp_path / "synth_r6" / "train" / "00000.json"
    meta = json.loads(meta_path.read_text())
    assert len(meta["quads"]) >= len(meta["pieces"]) > 0
    # ... and its partly shown dominoes, which ``meldcam eval`` counts neither right nor wrong
    from datasets.dominoes_synth import render_scene_detailed

    partial = render_scene_detailed(10 * 1_000_003, look=4).partial
    assert len(partial) == 3
    assert meta["partly_shown"] == [[label, list(box)] for label, box in partial]
    stored = build_dataset(tmp_path, "stored", [(look4, 1)], [], "domino", rotated=True)
    meta_path.write_text(json.dumps({k: v for k, v in meta.items() if k != "quads"}))
    rendered = build_dataset(tmp_path, "again", [(look4, 1)], [], "domino", rotated=True, procs=1)
    label = "labels/train/synth_r6_00000.txt"
    first = (stored.parent / label).read_text()
    assert first and (rendered.parent / label).read_text() == first
