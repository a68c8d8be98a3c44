"""The benchmarks' front doors (the benchmarks themselves are run by hand: they print figures)."""

import math

import pytest

from benchmarks import bench_vision


def test_a_models_folder_without_the_kinds_files_is_named(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        bench_vision.main(["--kind", "cards", "--models", str(tmp_path)])
    assert stop.value.code == 2
    assert "card_detector.onnx" in capsys.readouterr().err


def test_the_fans_benchmark_holds_whole_hands_with_fewer_readable_indices_when_tight():
    from benchmarks.cards_fans import HAND_SIZE, fanned_hands

    tight, loose = fanned_hands(5.0, count=3), fanned_hands(12.0, count=3)
    assert [len(hand) for hand, _, _ in tight] == [HAND_SIZE] * 3
    assert [hand for hand, _, _ in tight] == [hand for hand, _, _ in loose]  # the same hands
    assert [readable for _, _, readable in loose] == [HAND_SIZE] * 3
    assert sum(readable for _, _, readable in tight) < 3 * HAND_SIZE


def test_every_photo_condition_keeps_a_photo_a_photo_and_changes_it():
    import numpy as np

    from benchmarks.photo_conditions import CONDITIONS
    from vision.twostage import table_colour

    rng = np.random.default_rng(0)
    photo = rng.integers(0, 256, (1000, 1400, 3), dtype=np.uint8)
    for name, change in CONDITIONS.items():
        changed = change(photo)
        assert changed.dtype == np.uint8 and changed.ndim == 3 and changed.shape[2] == 3, name
        same_shape = changed.shape == photo.shape
        assert name == "as taken" or not same_shape or (changed != photo).any(), name
    grey = CONDITIONS["greyscale"](photo)
    assert (grey.max(axis=2) == grey.min(axis=2)).all()
    assert CONDITIONS["800 px"](photo).shape[:2] == (571, 800)
    assert CONDITIONS["turned a quarter"](photo).shape[:2] == (1400, 1000)
    turned = CONDITIONS["turned 45 degrees"](photo)  # grown to keep every corner
    assert turned.shape[:2] == (math.ceil(2400 * 0.5**0.5),) * 2
    low = CONDITIONS["seen from low"](photo)  # the far edge narrower: a plain table beside it
    table = np.array(table_colour(photo))
    assert low.shape == photo.shape and np.abs(low[0, 0] - table).max() <= 1


def test_the_pip_sizes_benchmark_draws_a_whole_double_twelve_at_each_size():
    from benchmarks.domino_pip_sizes import SIZES, photos

    drawn = list(photos(0))
    for kind in ("coded", "ivory"):
        for size in SIZES:
            labels = [label for k, s, _, ls in drawn if (k, s) == (kind, size) for label in ls]
            assert len(labels) == len(set(labels)) == 91  # every domino of the set, once


def test_an_unknown_photo_condition_is_named(capsys):
    from benchmarks.photo_conditions import main

    with pytest.raises(SystemExit):
        main(["--only", "foggy"])
    assert "foggy" in capsys.readouterr().err


def test_the_letters_benchmark_counts_what_each_photo_was_told():
    from benchmarks.cards_letters import Telling

    class Stub:
        def __init__(self, tells):
            self.tells, self.asked = list(tells), []

        def recognise(self, image, channels="rgb", set_name=None):
            self.asked.append(set_name)
            return {"pieces": [], "set": self.tells.pop(0)}

    stub = Stub(["pl", None, "de", "pl", "other"])
    telling = Telling(stub)
    for _ in range(5):
        telling.recognise("photo.jpg")
    assert stub.asked == ["auto"] * 5
    # told right / told only other letters than English / told another / not told
    assert telling.tally("pl") == "2/1/1/1"


def test_the_felts_benchmark_counts_every_card_read_on_a_bare_felt(tmp_path):
    from benchmarks.cards_felts import BARE_FELT_RENDERER, FELT_RENDERER, bare_felt_figures
    from training.scenes import generate

    generate(tmp_path, 0, 2, 1, procs=1, name="bare", renderer=BARE_FELT_RENDERER, quiet=True)

    class OneAceOnTheFirst:
        calls = 0

        def recognise(self, image, channels="rgb"):
            self.calls += 1
            ace = {"label": "AS", "sure": True}
            return {"pieces": [ace] if self.calls == 1 else []}

    figures = bare_felt_figures(tmp_path / "bare" / "val", OneAceOnTheFirst())
    assert figures == {
        "photos": 2,
        "cards_read": 1,
        "sure": 1,
        "read_as_nothing": 1,
        "labels": {"AS": 1},
    }
    generate(tmp_path, 0, 1, 1, procs=1, name="cards", renderer=FELT_RENDERER, quiet=True)
    with pytest.raises(ValueError, match="not a bare felt"):
        bare_felt_figures(tmp_path / "cards" / "val", OneAceOnTheFirst())


@pytest.mark.parametrize("kind", ["cards", "dominoes"])
def test_the_scale_benchmark_lays_pieces_of_each_share_in_one_frame(kind):
    """Each share's photos are the kind's frame, holding at least one piece, more where they
    fit (at most ``MOST``), each piece about that share of the photo's area."""
    from benchmarks.piece_scale import FRAMES, MOST, SHARES, photos

    width, height = FRAMES[kind]
    counts = []
    for share in (SHARES[0], SHARES[-1]):
        _name, image, labels = next(photos(kind, share, 1))
        assert image.shape == (height, width, 3)
        counts.append(len(labels))
    assert counts == [MOST, 1]


def test_the_scale_benchmarks_melds_hold_three_cards_where_three_fit():
    from benchmarks.piece_scale import photos

    assert len(next(photos("cards", 0.1, 1, layout="meld"))[2]) == 3
    assert len(next(photos("cards", 0.6, 1, layout="meld"))[2]) == 1  # 907 px wide: one fits


def test_turns_replace_the_conditions(capsys):
    from benchmarks.photo_conditions import main

    with pytest.raises(SystemExit):
        main(["--turns", "0,45", "--only", "greyscale"])
    err = capsys.readouterr().err
    assert "greyscale" in err and "turned 0 degrees, turned 45 degrees" in err


def test_the_tile_sure_errors_are_told_apart_by_kind():
    from benchmarks.tiles_sure_errors import error_kind

    assert error_kind("red-9", "red-6") == "6 and 9 swapped"
    assert error_kind("blue-3", "blue-13") == "leading 1 lost"
    assert error_kind("blue-2", "blue-7") == "value"
    assert error_kind("black-10", "blue-10") == "colour"
    assert error_kind("blue-1", None) == "took no tile"


def test_every_tile_family_renders_a_scene_with_its_partly_shown_tiles():
    from benchmarks.tiles_sure_errors import families

    for name, render in families().items():
        image, truth = render(7)
        assert image.ndim == 3 and truth, name
        assert all(len(boxes) == 1 and len(boxes[0]) == 4 for _label, boxes in truth), name
