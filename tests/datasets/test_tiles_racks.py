"""Look-2 tile scenes: racks, one set per photo, printings and rack styles that can be left out."""

import numpy as np
import pytest

from datasets.tile_printings import (
    FONT_FAMILIES,
    HELD_OUT_PRINTING,
    PRINTING_NAMES,
    PRINTINGS,
    choose_set,
    family_fonts,
    printing,
    render_set_tile,
)
from datasets.tiles_racks import (
    HELD_OUT_RACK,
    RACK_STYLES,
    render_held_out_printing_scene,
    render_held_out_rack_scene,
    render_look2_detailed,
    render_training_scene,
    render_training_scene_every_tile,
)
from datasets.tiles_synth import render_scene, render_scene_every_tile
from training.evaluate import LABEL_SHAPES


def test_every_printing_has_an_installed_font_and_a_known_family():
    for p in PRINTINGS:
        assert p.family in FONT_FAMILIES
        assert family_fonts(p.family)
    assert HELD_OUT_PRINTING in PRINTING_NAMES
    with pytest.raises(KeyError, match="no printing"):
        printing("nonesuch")


@pytest.mark.parametrize("name", PRINTING_NAMES)
def test_a_set_draws_every_label_as_a_tile_face(name):
    rng = np.random.default_rng(1)
    look = choose_set(rng, name)
    for label in ("red-1", "orange-13", "blue-6", "black-17", "joker"):
        face = render_set_tile(rng, look, label, 60)
        assert face.shape == (int(60 * look.aspect), 60, 4)
        opaque = face[..., 3] > 200
        assert opaque.mean() > 0.8  # the face fills its tile
        ink = face[..., :3][opaque].std()
        assert ink > 5  # something is printed on it


def test_a_pictogram_joker_is_one_drawing_per_set_and_differs_between_sets():
    def joker(seed: int) -> np.ndarray:
        rng = np.random.default_rng(seed)
        look = choose_set(rng, "club", pictogram_jokers=1.0)
        assert look.joker == "pictogram"
        return render_set_tile(np.random.default_rng(0), look, "joker", 60)

    assert np.array_equal(joker(3), joker(3))  # every joker of a set prints the same
    assert not np.array_equal(joker(3), joker(4))  # another set, another pictogram
    face = joker(5)
    assert face[..., :3][face[..., 3] > 200].std() > 5  # something is printed on it


def test_without_pictograms_a_set_is_drawn_as_before():
    """The share 0 (every scene set but the training crops) draws nothing more from the
    generator, so the held-out and calibration scenes stay the ones measured before."""
    plain, zero = np.random.default_rng(8), np.random.default_rng(8)
    assert choose_set(plain, "okey") == choose_set(zero, "okey", pictogram_jokers=0.0)
    assert plain.random() == zero.random()
    assert choose_set(np.random.default_rng(8), "okey").joker in printing("okey").jokers


def test_scenes_are_rebuilt_from_their_seed():
    first = render_look2_detailed(11)
    second = render_look2_detailed(11)
    assert np.array_equal(first.image, second.image)
    assert first.labels == second.labels


def test_labels_lie_in_the_photo_and_name_real_tiles():
    for seed in range(4):
        scene = render_look2_detailed(seed, rack_share=1.0)
        h, w = scene.image.shape[:2]
        assert scene.rack_style in RACK_STYLES and scene.view in ("front", "oblique", "above")
        assert scene.labels, "a rack scene shows tiles"
        assert len(scene.labels) == len(scene.quads)
        for (label, (x1, y1, x2, y2)), quad in zip(scene.labels, scene.quads, strict=True):
            assert LABEL_SHAPES["tiles"].fullmatch(label)
            assert 0 <= x1 < x2 <= w and 0 <= y1 < y2 <= h
            quad = np.array(quad)
            # the visible part's rotated rectangle encloses its box's centre
            cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
            assert quad[:, 0].min() - 2 <= cx <= quad[:, 0].max() + 2
            assert quad[:, 1].min() - 2 <= cy <= quad[:, 1].max() + 2


def test_a_rack_tile_is_boxed_down_to_what_hides_its_foot():
    """Front views of racks: the lip hides the foot, so boxes are less tall than a whole face
    (height / width 1.35) on average."""
    ratios = []
    for seed in range(8):
        scene = render_look2_detailed(seed, rack_share=1.0)
        if scene.view != "front":
            continue
        for _label, (x1, y1, x2, y2) in scene.labels:
            ratios.append((y2 - y1) / (x2 - x1))
    assert ratios and float(np.median(ratios)) < 1.3


def test_training_scenes_never_draw_the_held_out_printing_or_rack():
    allowed = tuple(p for p in PRINTING_NAMES if p != HELD_OUT_PRINTING)
    racks = tuple(r for r in RACK_STYLES if r != HELD_OUT_RACK)
    for seed in range(8):
        scene = render_look2_detailed(seed, allowed, racks, size=(320, 240))
        assert scene.printing != HELD_OUT_PRINTING
        assert scene.rack_style != HELD_OUT_RACK
    assert np.array_equal(
        render_look2_detailed(5, allowed, racks).image, render_training_scene(5)[0]
    )


def test_held_out_scenes_draw_only_what_training_leaves_out():
    image, labels, quads = render_held_out_printing_scene(0)
    assert image.ndim == 3 and len(labels) == len(quads)
    image, labels, quads = render_held_out_rack_scene(0)
    assert labels
    allowed = tuple(p for p in PRINTING_NAMES if p != HELD_OUT_PRINTING)
    scene = render_look2_detailed(0, (HELD_OUT_PRINTING,), size=(320, 240))
    assert scene.printing == HELD_OUT_PRINTING
    scene = render_look2_detailed(0, allowed, (HELD_OUT_RACK,), rack_share=1.0, size=(320, 240))
    assert scene.rack_style == HELD_OUT_RACK


def test_partly_shown_tiles_are_listed_apart_from_the_labels():
    """Tiles showing too little to be labelled (behind a tier, cut off by the frame) are kept
    with their true labels, after the labelled ones, for calibration to judge readings of them;
    the labels and the photo are those of the training renderer."""
    partial_seen = 0
    for seed in range(6):
        scene = render_look2_detailed(seed, rack_share=1.0)
        h, w = scene.image.shape[:2]
        for label, (x1, y1, x2, y2) in scene.partial:
            assert LABEL_SHAPES["tiles"].fullmatch(label)
            assert 0 <= x1 < x2 <= w and 0 <= y1 < y2 <= h
        partial_seen += len(scene.partial)
        image, labels, _quads = render_training_scene(seed)
        every_image, every = render_training_scene_every_tile(seed)
        assert np.array_equal(image, every_image)
        assert every[: len(labels)] == labels
    assert partial_seen > 0  # racks hide feet and the frame cuts tiles


def test_look_1_scenes_list_their_partly_shown_tiles_too():
    partial_seen = 0
    for seed in range(4):
        image, labels = render_scene(seed)
        every_image, every = render_scene_every_tile(seed)
        assert np.array_equal(image, every_image)
        assert every[: len(labels)] == labels
        partial_seen += len(every) - len(labels)
    assert partial_seen > 0
