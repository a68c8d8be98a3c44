#!/usr/bin/env bash
# Sets up everything from nothing (see setup.sh), then runs the linter and the whole test suite.
# Extra arguments go to pytest, e.g. scripts/test.sh -m "not slow".
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check .
.venv/bin/python -m pytest "$@"
