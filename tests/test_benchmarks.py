"""The speed benchmark's front door (the benchmark itself is run by hand: it prints figures)."""

import pytest

from benchmarks import bench_vision


def test_a_models_folder_without_the_kinds_files_is_named(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        bench_vision.main(["--kind", "cards", "--models", str(tmp_path)])
    assert stop.value.code == 2
    assert "card_detector.onnx" in capsys.readouterr().err
