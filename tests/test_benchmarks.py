"""The benchmarks' front doors (the benchmarks themselves are run by hand: they print figures)."""

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
