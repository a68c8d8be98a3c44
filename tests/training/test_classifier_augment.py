"""The classifier's training views: failure modes of real photos, labels kept readable."""

from __future__ import annotations

import numpy as np

from training.classifier import augment, occlude_edge, random_perspective
from vision.crops import CROP_SIZE, STORE_SIZE


def test_edge_occlusion_covers_one_side_strip_and_leaves_the_face_centre():
    crop = np.full((CROP_SIZE, CROP_SIZE, 3), 200, np.uint8)
    for seed in range(30):
        out = occlude_edge(crop, np.random.default_rng(seed))
        changed = (out != crop).any(axis=2)
        assert changed.any()
        assert not changed[16:-16, 16:-16].any()  # the middle, where the number is, stays
        assert changed.mean() <= 0.23


def test_perspective_keeps_the_crop_size_and_moves_pixels_only_a_little():
    yy, xx = np.mgrid[0:CROP_SIZE, 0:CROP_SIZE]
    crop = np.dstack([xx * 4, yy * 4, np.zeros_like(xx)]).astype(np.uint8)
    out = random_perspective(crop, np.random.default_rng(3))
    assert out.shape == crop.shape and out.dtype == np.uint8
    centre = CROP_SIZE // 2
    # The centre pixel comes from within 7 % of the side of where it was.
    assert abs(int(out[centre, centre, 0]) - centre * 4) <= 0.07 * CROP_SIZE * 4 + 4
    assert abs(int(out[centre, centre, 1]) - centre * 4) <= 0.07 * CROP_SIZE * 4 + 4


def test_augment_gives_classifier_sized_views_that_differ():
    rng = np.random.default_rng(0)
    stored = rng.integers(0, 255, (STORE_SIZE, STORE_SIZE, 3), dtype=np.uint8)
    views = [augment(stored, rng) for _ in range(8)]
    assert all(v.shape == (CROP_SIZE, CROP_SIZE, 3) and v.dtype == np.uint8 for v in views)
    assert len({v.tobytes() for v in views}) == 8


def test_a_spec_can_turn_views_grey_and_blur_them_hard():
    from dataclasses import replace

    from training.classifier import TILE_SPEC

    rng = np.random.default_rng(0)
    stored = rng.integers(0, 255, (STORE_SIZE, STORE_SIZE, 3), dtype=np.uint8)
    grey = replace(TILE_SPEC, grey_share=1.0)
    for seed in range(5):
        view = augment(stored, np.random.default_rng(seed), grey)
        assert (view.max(axis=2) == view.min(axis=2)).all()  # no colour left at all
    # Blurred hard, neighbouring pixels of random noise come closer together.
    blurred = replace(TILE_SPEC, strong_blur=1.0)
    sharp_steps = [
        np.abs(np.diff(augment(stored, np.random.default_rng(s)).astype(int), axis=1)).mean()
        for s in range(5)
    ]
    blurred_steps = [
        np.abs(
            np.diff(augment(stored, np.random.default_rng(s), blurred).astype(int), axis=1)
        ).mean()
        for s in range(5)
    ]
    assert np.mean(blurred_steps) < 0.7 * np.mean(sharp_steps)


def test_a_smear_spreads_a_dot_along_its_direction_only():
    """Motion blur (``ReaderSpec.shaken``): a dot becomes a line of ``length`` px along the
    angle, its ink kept."""
    from training.classifier import smear

    view = np.zeros((31, 31, 3), np.float32)
    view[15, 15] = 255.0
    across = smear(view, 9, 0.0)[..., 0]
    assert (across[15, 11:20] > 0).all() and not across[:15].any() and not across[16:].any()
    assert abs(float(across.sum()) - 255.0) < 1.0
    down = smear(view, 9, 90.0)[..., 0]
    assert (down[11:20, 15] > 0).all() and down[15, 10] == 0


def test_a_spec_can_smear_views():
    from dataclasses import replace

    from training.classifier import TILE_SPEC

    stored = np.zeros((STORE_SIZE, STORE_SIZE, 3), np.uint8)
    stored[::8] = 255  # stripes across: a vertical smear blends them
    shaken = replace(TILE_SPEC, shaken=1.0)
    views = [augment(stored, np.random.default_rng(seed), shaken) for seed in range(4)]
    plain = [augment(stored, np.random.default_rng(seed), TILE_SPEC) for seed in range(4)]
    assert all(v.shape == (CROP_SIZE, CROP_SIZE, 3) for v in views)
    assert any(not np.array_equal(v, p) for v, p in zip(views, plain, strict=True))


def test_balanced_sampling_sees_rare_dominoes_more_and_keeps_the_none_share():
    from training.classifier import label_weights
    from training.readers import DOMINO_BALANCED_SPEC, DOMINO_FINETUNE_SPEC

    none = DOMINO_BALANCED_SPEC.none_index
    # 0-1 drawn 16 times, 9-10 once, and 8 boxes of no domino
    values = np.array([0] * 16 + [9] + [none] * 8)
    seconds = np.array([1] * 16 + [10] + [-1] * 8)
    weights = label_weights(values, seconds, DOMINO_BALANCED_SPEC)
    assert weights[values == none].tolist() == [1.0] * 8
    assert np.isclose(weights[values != none].sum(), 17)  # the pieces keep their share
    assert np.isclose(weights[16] / weights[0], 4.0)  # (16 / 1) ** 0.5: the rare one 4x
    assert (label_weights(values, seconds, DOMINO_FINETUNE_SPEC) == 1).all()
