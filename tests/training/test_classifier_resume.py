"""A reader's training resumes from its checkpoint only when the schedule is the same."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from training.classifier import _resume, _save  # noqa: E402


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
