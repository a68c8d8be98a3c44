#!/usr/bin/env bash
# Sets up everything from nothing (see setup.sh), then runs the linter, the type checker
# (mypy, as [tool.mypy] in pyproject.toml sets it) and the whole test suite (on SQLite, and on
# the PostgreSQL and Redis servers of scripts/services.sh).
# Extra arguments go to pytest, e.g. scripts/test.sh -m "not slow".
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check .
.venv/bin/mypy
# throwaway PostgreSQL and Redis servers for the storage, API and several-node tests, stopped
# when this script ends
source scripts/services.sh
start_test_services
.venv/bin/python -m pytest "$@"
