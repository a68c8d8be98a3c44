#!/usr/bin/env bash
# Sets up everything from nothing (see setup.sh), then runs the linter, the type checker
# (mypy, as [tool.mypy] in pyproject.toml sets it) and the whole test suite (on SQLite, and on
# the PostgreSQL and Redis servers of scripts/services.sh), on one process per core
# (pytest-xdist: -n auto; each test file on one process, so that its browser or served app
# starts once).
# Extra arguments go to pytest, e.g. scripts/test.sh -m "not slow", or -n 0 to run serially.
#
# scripts/test.sh --fast [PYTEST ARGUMENTS]: the loop for a scorer or web app change: no
# set-up, type check or services; ruff, then the tests marked neither slow nor servers in
# tests/scorer and tests/webapp (or the paths given, e.g. tests/webapp) on two processes.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--fast" ]; then
    shift
    .venv/bin/ruff check scorer webapp tests/scorer tests/webapp
    paths=(tests/scorer tests/webapp)
    for argument in "$@"; do
        case $argument in tests*) paths=() ;; esac
    done
    exec .venv/bin/python -m pytest -q -rfE -m "not slow and not servers" -n 2 "${paths[@]}" "$@"
fi
bash scripts/setup.sh
.venv/bin/ruff check .
.venv/bin/mypy
# throwaway PostgreSQL and Redis servers for the storage, API and several-node tests, stopped
# when this script ends
source scripts/services.sh
start_test_services
# each test file on one process, in the order tests/conftest.py gives (the long ones first)
.venv/bin/python -m pytest -n auto --dist loadfile --no-loadscope-reorder "$@"
