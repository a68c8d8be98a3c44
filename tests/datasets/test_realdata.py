"""The real-photo split: a fixed quarter of the trainable source is never trained on."""

from __future__ import annotations

import json

import pytest

from datasets.realdata import load_photos, realdata_dir, split_trainable

SOURCE = "conner-replogle/rummikub-detector@abc:x"


def write(folder, name, source=SOURCE, pieces=(), domain="rummikub"):
    (folder / f"{name}.jpg").write_bytes(b"x")
    (folder / f"{name}.json").write_text(
        json.dumps(
            {
                "domain": domain,
                "scene": "table",
                "source": source,
                "pieces": None
                if pieces is None
                else [{"label": p, "bbox": [0, 0, 1, 1]} for p in pieces],
            }
        )
    )


def test_every_fourth_by_name_is_held_out_and_others_never_train(tmp_path):
    for i in range(8):
        write(tmp_path, f"rk_{i:02d}", pieces=["red-1"])
    write(tmp_path, "rk_other", source="Inc-G/Rummikub-helper@abc:y", pieces=["red-2"])
    write(tmp_path, "rk_unlabelled", pieces=None)
    write(tmp_path, "dm_x", domain="domino", pieces=["3-4"])
    photos = load_photos(tmp_path, "rummikub")
    assert len(photos) == 10
    train, held = split_trainable(photos)
    assert [p.name for p in held] == ["rk_03", "rk_07"]
    assert {p.name for p in train} == {f"rk_{i:02d}" for i in (0, 1, 2, 4, 5, 6)}


def test_split_of_the_real_folder_when_present():
    data = realdata_dir()
    if data is None:
        pytest.skip("real photos (../shared/realdata) not present")
    train, held = split_trainable(load_photos(data, "rummikub"))
    assert len(held) >= 15 and not {p.name for p in train} & {p.name for p in held}
    assert all(p.trainable_source for p in train + held)
