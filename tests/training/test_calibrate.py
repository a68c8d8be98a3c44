"""``training.calibrate``: the Clopper-Pearson bound, the threshold choice, the matching of pieces
read to true pieces (pure logic, no model)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from training.calibrate import (
    NOTHING_SURE,
    assign,
    choose_threshold,
    choose_threshold_per_family,
    clopper_pearson_upper,
    match,
    renderer,
    short_threshold,
)

# One-sided 95 % upper bounds, the 0.95 quantile of Beta(k + 1, n - k) (scipy.stats.beta.ppf).
KNOWN_BOUNDS = [
    (0, 10, 0.2588655508930522),
    (0, 598, 0.004997058694246506),
    (1, 100, 0.046559811453538935),
    (2, 1259, 0.0049921059496058455),
    (5, 20, 0.4555824040017489),
    (3, 1500, 0.00516091876426102),
    (10, 1000, 0.016903175120562504),
]


@pytest.mark.parametrize(("errors", "n", "bound"), KNOWN_BOUNDS)
def test_clopper_pearson_upper_bound_matches_the_beta_quantile(errors, n, bound):
    assert clopper_pearson_upper(errors, n) == pytest.approx(bound, rel=1e-9)


def test_clopper_pearson_edges():
    assert clopper_pearson_upper(0, 0) == 1.0
    assert clopper_pearson_upper(7, 7) == 1.0
    assert clopper_pearson_upper(0, 1) == pytest.approx(0.95)
    # more pieces with the same errors: a tighter bound; more errors: a looser one
    assert clopper_pearson_upper(2, 2000) < clopper_pearson_upper(2, 1000)
    assert clopper_pearson_upper(3, 1000) > clopper_pearson_upper(2, 1000)


def test_the_lowest_threshold_whose_bound_holds_is_chosen():
    # 1000 right pieces scoring 0.9-1.0, and wrong ones scoring 0.5-0.8: accepting every piece
    # from 0.8 up takes one wrong piece among 1001 (bound 0.0047 <= 0.005).
    rng = np.random.default_rng(0)
    right_scores = rng.uniform(0.9, 1.0, 1000)
    wrong_scores = np.array([0.8, 0.7, 0.6, 0.5])
    scores = np.concatenate([right_scores, wrong_scores])
    right = [True] * 1000 + [False] * 4
    choice = choose_threshold(scores, right)
    assert choice.threshold == 0.8  # as low as the accepted pieces go, above the refused 0.7
    assert (choice.accepted, choice.errors) == (1001, 1)
    assert choice.bound == pytest.approx(clopper_pearson_upper(1, 1001))
    assert choice.bound <= 0.005
    assert choice.precision == pytest.approx(1000 / 1001)
    assert choice.share == pytest.approx(1001 / 1004)
    # two wrong pieces among 1002 are too many (bound 0.0063): 0.7 is not chosen
    assert clopper_pearson_upper(2, 1002) > 0.005


def test_every_family_of_scenes_must_certify_on_its_own():
    # Tables: 1000 right pieces at 0.9-1.0 and wrong ones at 0.5-0.8 certify from 0.8 (above).
    # Racks: 1000 right pieces at 0.9-1.0 and two wrong ones at 0.85 and 0.82 certify from 0.85
    # (one wrong among 1001); pooled, four wrong pieces among 2004 (bound 0.0046) pass at 0.7.
    rng = np.random.default_rng(0)
    tables = np.concatenate([rng.uniform(0.9, 1.0, 1000), [0.8, 0.7, 0.6, 0.5]])
    racks = np.concatenate([rng.uniform(0.9, 1.0, 1000), [0.85, 0.82]])
    scores = np.concatenate([tables, racks])
    right = [True] * 1000 + [False] * 4 + [True] * 1000 + [False] * 2
    families = ["tables"] * 1004 + ["racks"] * 1002
    assert choose_threshold(scores, right).threshold == 0.7
    choice, own = choose_threshold_per_family(scores, right, families)
    assert own["tables"].threshold == 0.8
    assert own["racks"].threshold == 0.85
    assert choice.threshold == 0.85
    assert (choice.accepted, choice.errors) == (2001, 1)
    # a family that certifies nothing makes nothing sure
    choice, _own = choose_threshold_per_family(
        np.concatenate([tables, np.full(100, 0.99)]),
        right[:1004] + [True] * 100,
        ["tables"] * 1004 + ["few"] * 100,
    )
    assert choice.threshold == NOTHING_SURE and choice.accepted == 0


def test_too_few_pieces_make_nothing_sure():
    # 500 right pieces and no wrong one: the bound is 0.006 at best, above 0.005
    choice = choose_threshold(np.full(500, 0.99), [True] * 500)
    assert choice.threshold == NOTHING_SURE and choice.accepted == 0
    assert choice.share == 0.0 and choice.precision is None


def test_every_piece_right_makes_every_piece_sure():
    choice = choose_threshold(np.linspace(0.2, 1.0, 700), [True] * 700)
    assert choice.accepted == 700 and choice.errors == 0
    assert 0.0 < choice.threshold <= 0.2


def test_the_threshold_is_the_shortest_decimal_keeping_the_same_pieces():
    assert short_threshold(0.973456, 0.95) == 0.97
    assert short_threshold(0.973456, 0.9731) == 0.9734
    assert short_threshold(0.8, 0.7) == 0.8
    # 600 right pieces and a wrong one: the bound holds without the wrong one only
    scores = np.concatenate([np.full(600, 0.99931), [0.9991]])
    choice = choose_threshold(scores, [True] * 600 + [False])
    assert choice.threshold == 0.9993 and (choice.accepted, choice.errors) == (600, 0)


def piece(label, box, confidence=0.9, corners=None):
    entry = {"label": label, "bbox": box, "confidence": confidence}
    if corners is not None:
        entry["corners"] = corners
    return entry


def test_pieces_are_matched_by_overlap_most_confident_first():
    truth = [("red-1", [[0, 0, 10, 20]]), ("red-2", [[12, 0, 22, 20]])]
    pieces = [
        piece("red-1", [0, 0, 10, 20], 0.6),  # right
        piece("blue-2", [12, 0, 22, 21], 0.9),  # takes red-2's place first, wrong label
        piece("red-2", [12, 1, 22, 20], 0.5),  # red-2's place is taken: found twice, wrong
        piece("joker", [50, 50, 60, 70], 0.99),  # where there is no tile: wrong
        piece("red-1", [4, 0, 14, 20], 0.3),  # IoU 0.43 with red-1 and red-1 is taken: wrong
    ]
    assert match(pieces, truth) == [True, False, False, False, False]


def test_each_piece_is_assigned_the_true_piece_it_took():
    truth = [("red-1", [[0, 0, 10, 20]]), ("red-2", [[12, 0, 22, 20]]), ("red-3", [[24, 0, 30, 9]])]
    pieces = [
        piece("red-1", [0, 0, 10, 20], 0.6),
        piece("blue-2", [12, 0, 22, 21], 0.9),
        piece("red-3", [24, 0, 30, 10], 0.7),  # a partly shown tile listed last in the truth
        piece("joker", [50, 50, 60, 70], 0.99),
    ]
    assert assign(pieces, truth) == [0, 1, 2, None]
    assert match(pieces, truth) == [True, False, True, False]


def test_cards_are_matched_by_any_of_their_corner_indices():
    truth = [("7H", [[0, 0, 10, 20], [90, 130, 100, 150]]), ("7H", [[300, 0, 310, 20]])]
    pieces = [
        # one card read from its lower index alone, another from its top index
        piece("7H", [90, 130, 100, 150], corners=[[90, 130, 100, 150]]),
        piece("7H", [300, 0, 310, 20], corners=[[300, 0, 310, 20]]),
        piece("7H", [150, 0, 160, 20], corners=[[150, 0, 160, 20]]),  # no such card
    ]
    assert match(pieces, truth) == [True, True, False]


def test_cards_are_matched_by_their_index_label_first_however_loosely_boxed():
    truth = [("7C", [[0, 0, 20, 10]]), ("8C", [[0, 12, 20, 22]]), ("KS", [[100, 0, 120, 10]])]
    pieces = [
        # the index boxed with the pip under it: IoU 0.4 with 7C, but 7C lies inside it
        piece("7C", [0, 0, 20, 25], 0.9, corners=[[0, 0, 20, 25]]),
        # the 8C's index boxed around its rank only (under half of it), read right
        piece("8C", [0, 12, 9, 22], 0.5, corners=[[0, 12, 9, 22]]),
        # the KS read twice: the second report is wrong
        piece("KS", [100, 0, 120, 10], 0.8, corners=[[100, 0, 120, 10]]),
        piece("KS", [101, 0, 121, 10], 0.7, corners=[[101, 0, 121, 10]]),
    ]
    assert match(pieces, truth, matching="index") == [True, True, True, False]
    assert match(pieces, truth) == [False, False, True, False]  # by boxes: IoU 0.4 and 0.45 miss
    # a misreading still takes the card it lies on (so that card's right reading, found
    # later, is a second report)
    misread = [piece("7S", [0, 0, 20, 10], 0.9, corners=[[0, 0, 20, 10]])]
    assert assign(misread, truth, matching="index") == [0]
    assert match(misread + pieces[:1], truth, matching="index") == [False, False]


def test_card_truth_holds_partly_shown_indices_too():
    """A reading of a partly shown index is judged by its card's label (as for tiles and
    dominoes), not counted as a card found where there is none."""
    from datasets.cards_synth import render_scene
    from training.calibrate import _card_truth

    scene = next(
        s for s in (render_scene(seed, size=(640, 480)) for seed in range(10, 40)) if s.partly_shown
    )
    truth = _card_truth(scene)
    for card in (*scene.cards, *scene.partly_shown):
        boxes = [list(k.box) for k in (*card.corners, *card.partial)]
        assert ((card.label, boxes) in truth) == bool(boxes)


def test_a_renderer_spec_names_a_function_and_a_look():
    render = renderer("training.calibrate:card_scene@5")
    assert callable(render)
    with pytest.raises(AttributeError):
        renderer("training.calibrate:no_such_renderer")


def test_tight_fan_scenes_are_a_renderer_of_their_own():
    image, truth = renderer("training.calibrate:card_fans_scene")(3)
    assert image.ndim == 3 and len(truth) >= 7  # at least one hand of 7 or more
    assert all(boxes for _label, boxes in truth)


def test_dark_deck_scenes_are_a_renderer_of_their_own():
    """The scenes a dark deck's readings (read inverted) are calibrated on: every deck dark,
    its indices far darker than a light deck's."""

    def index_lightness(spec: str) -> float:
        image, truth = renderer(spec)(3)
        assert truth and all(boxes for _label, boxes in truth)
        means = [
            image[int(y1) : int(y2), int(x1) : int(x2)].mean()
            for _label, boxes in truth
            for x1, y1, x2, y2 in boxes
        ]
        return float(np.median(means))

    dark = index_lightness("training.calibrate:card_dark_scene@en")
    assert dark < 0.6 * index_lightness("training.calibrate:card_letters_scene@en")


def test_a_deck_letters_reader_is_calibrated_on_scenes_of_that_set_alone():
    """``--set pl``: the threshold of Polish decks, on scenes of decks printing Polish letters
    (the same reader reads German decks, at a threshold of their own); no set: the kind's own
    renderers."""
    from training.calibrate import DEFAULT_RENDERERS, set_renderers
    from vision.kinds import CARDS

    for name, _own in CARDS.set_readers:
        assert set_renderers("cards", name) == (f"training.calibrate:card_letters_scene@{name}",)
    specs = set_renderers("cards", "pl")
    default = DEFAULT_RENDERERS["cards"]
    assert set_renderers("cards", None) == set_renderers("cards", "en") == default
    image, truth = renderer(specs[0])(3)  # a string argument: the letters
    assert image.ndim == 3 and truth and all(len(boxes) >= 1 for _label, boxes in truth)


def test_calibrate_reads_scenes_and_chooses_the_threshold_of_the_settings_score(stand_in):
    """The glue, on stand-in models (tests/vision/conftest.py): 600 scenes each read as a
    sure red-5 (right) and an unsure blue-9 where a black-9 lies (wrong)."""
    from dataclasses import replace

    from training.calibrate import calibrate
    from vision.pipeline import Recogniser

    image, settings, sessions = stand_in
    unset = replace(settings, sure_score="probability", sure_threshold=1.01)
    recogniser = Recogniser(unset, sessions=sessions)
    truth = [("red-5", [[20, 20, 80, 100]]), ("black-9", [[140, 20, 200, 100]])]
    pieces: list[dict] = []
    report = calibrate(
        "tiles", ((f"{i}", image, truth) for i in range(600)), recogniser, None, pieces
    )
    assert (report["pieces"], report["right"]) == (1200, 600)
    chosen = report["chosen"]
    assert chosen["threshold"] == 0.9  # the shortest decimal above 0.8 and at most 0.999
    assert (chosen["accepted"], chosen["errors"], chosen["share"]) == (600, 0, 0.5)
    assert report["by_score"]["confidence"]["accepted"] == 600
    assert report["settings_now"]["accepted"] == 0  # threshold 1.01: nothing sure yet
    assert len(pieces) == 1200 and set(pieces[0]["scores"]) >= {"probability", "confidence"}
    # each piece with what a sure rule might look at: its box, its photo's size (h, w) and
    # its rotated box (None from an axis-aligned detector)
    assert pieces[0]["image"] == list(image.shape[:2]) and "rotated" in pieces[0]


def test_calibrate_names_the_threshold_it_writes():
    """``sets.SET`` for a set with a reader of its own, ``dark_faces`` for dark decks' scenes,
    ``sure`` otherwise, or the name given; the command names every choice."""
    from argparse import Namespace

    from training.calibrate import calibrate_command, threshold_name

    def args(**given):
        base = dict(kind="cards", set_name=None, renderer=None, threshold=None, folder=None)
        return Namespace(**(base | {"scenes": None, "seed": None} | given))

    assert threshold_name(args()) == "sure"
    assert threshold_name(args(set_name="pl")) == "sets.pl"
    assert threshold_name(args(set_name="en")) == "sure"  # the English reader's own
    dark = args(renderer=["training.calibrate:card_dark_scene@en"], scenes=300, seed=7)
    assert threshold_name(dark) == "dark_faces"
    assert threshold_name(args(threshold="mine")) == "mine"
    assert calibrate_command(dark) == (
        "meldcam calibrate --kind cards --scenes 300 --seed 7"
        " --renderer training.calibrate:card_dark_scene@en"
    )
    folder = args(kind="tiles", folder=Path("scenes"), set_name="x")
    assert calibrate_command(folder) == "meldcam calibrate scenes --kind tiles --set x"
