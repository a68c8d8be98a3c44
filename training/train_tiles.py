"""``python -m training.train_tiles``: ``python -m training.train --kind tiles`` (kept for the
commands written down before the two trainers became one)."""

from __future__ import annotations

import sys

from training.train import main

if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:], kind="tiles"))
