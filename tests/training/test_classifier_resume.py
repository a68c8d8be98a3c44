"""A reader's training resumes from its checkpoint only when the schedule is the same, and
from its cached crops only when they were cut from the same scenes."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import numpy as np  # noqa: E402

from training.classifier import _resume, _save, cached_crops  # noqa: E402


def _state(total_steps: int):
    net = torch.nn.Linear(3, 2)
    optimiser = torch.optim.AdamW(net.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=1e-3, total_steps=total_steps)
    return net, optimiser, scheduler


def test_a_checkpoint_of_the_same_schedule_resumes_after_its_epoch(tmp_path):
    checkpoint = tmp_path / "r_last.pt"
    net, optimiser, scheduler = _state(40)
    for _ in range(10):
        optimiser.step()
        scheduler.step()
    _save(checkpoint, net, optimiser, scheduler, epoch=0)
    again = _state(40)
    assert _resume(checkpoint, *again) == 1
    assert torch.equal(again[0].weight, net.weight)
    assert again[2].last_epoch == 10


def test_a_checkpoint_of_another_schedule_starts_over(tmp_path, capsys):
    """The recipe changed under its tag (more epochs, more crops): resuming would step the
    rate schedule past its end (a ValueError ten minutes in), so training starts over."""
    checkpoint = tmp_path / "r_last.pt"
    net, optimiser, scheduler = _state(40)
    _save(checkpoint, net, optimiser, scheduler, epoch=3)
    other = _state(60)
    assert _resume(checkpoint, *other) == 0
    assert other[2].last_epoch == 0
    assert "planned 40 steps, this run 60" in capsys.readouterr().out


def test_no_checkpoint_starts_at_the_first_epoch(tmp_path):
    assert _resume(tmp_path / "missing.pt", *_state(10)) == 0


def _cache(path, **source):
    arrays = {
        "crops": np.zeros((2, 4, 4, 3), np.uint8),
        "values": np.array([1, 2]),
        "colours": np.array([0, -1]),
        "is_real": np.zeros(2, bool),
    }
    np.savez(path, **arrays, **source)


def test_crops_cut_from_the_same_scenes_are_used_again(tmp_path):
    cache = tmp_path / "d6_crops.npz"
    _cache(cache, source="finetune_d6_look5 1200+20 seed 20261191")
    same = "finetune_d6_look5 1200+20 seed 20261191"
    crops, values, colours, is_real = cached_crops(cache, same)
    assert crops.shape == (2, 4, 4, 3) and values.tolist() == [1, 2]
    assert colours.tolist() == [0, -1] and not is_real.any()


def test_crops_cut_from_other_scenes_are_cut_again(tmp_path, capsys):
    """A recipe changed under its tag (its look-5 set grown from 400 scenes to 1,200) must not
    train on the crops of the smaller set."""
    cache = tmp_path / "d6_crops.npz"
    _cache(cache, source="finetune_d6_look5 400+20 seed 20261191")
    assert cached_crops(cache, "finetune_d6_look5 1200+20 seed 20261191") is None
    assert "cutting again" in capsys.readouterr().out
    assert cached_crops(tmp_path / "missing.npz", "") is None


def test_crops_cached_before_sources_were_kept_are_used_as_they_are(tmp_path):
    cache = tmp_path / "old_crops.npz"
    _cache(cache)
    assert cached_crops(cache, "anything") is not None
