#!/usr/bin/env bash
# Sets up everything meldcam needs from nothing: the virtual environment at .venv/ and the
# project with its test and training extras. Safe to run again; a second run only checks.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    echo "meldcam setup: creating .venv"
    "$PYTHON" -m venv .venv
fi
stamp=.venv/.meldcam-setup
want=$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    echo "meldcam setup: installing packages"
    .venv/bin/python -m pip install --quiet --upgrade pip
    .venv/bin/python -m pip install --quiet -e ".[dev,train]"
    echo "$want" > "$stamp"
fi
# Browser for the end-to-end web tests: Debian's chromium (Playwright downloads no browser).
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "meldcam setup: installing chromium"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
