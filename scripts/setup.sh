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
# Debian packages: chromium for the end-to-end web tests (Playwright downloads no browser) and the
# fonts the synthetic tile generators draw with (datasets/tiles_synth.py FONT_NAMES and
# datasets/tile_printings.py FONT_FAMILIES: the same fonts
# make the same training data; the shipped models were trained with exactly these).
apt_packages="chromium fonts-dejavu-core fonts-dejavu-extra fonts-liberation fonts-freefont-ttf
fonts-urw-base35 fonts-roboto-unhinted fonts-open-sans fonts-comfortaa"
missing=""
for package in $apt_packages; do
    dpkg -s "$package" >/dev/null 2>&1 || missing="$missing $package"
done
if [ -n "$missing" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "meldcam setup: installing$missing"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
    else
        echo "meldcam setup: please install these Debian packages:$missing" >&2
    fi
fi
