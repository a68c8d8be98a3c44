"""``python -m training.train_pieces --kind dominoes|cards``: ``python -m training.train``
(kept for the commands written down before the two trainers became one)."""

from __future__ import annotations

from training.train import main

if __name__ == "__main__":
    raise SystemExit(main())
