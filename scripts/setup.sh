#!/usr/bin/env bash
# Sets up everything meldcam needs from nothing: the virtual environment at .venv/ and the
# project with its test and training extras, and the Debian packages the tests and the scene
# generators use. With --runtime, only what serving needs: the project without extras (no torch,
# ultralytics or playwright). Safe to run again; a second run only checks.
set -euo pipefail
cd "$(dirname "$0")/.."
level=full
if [ "${1:-}" = "--runtime" ]; then
    level=runtime
fi
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    echo "meldcam setup: creating .venv"
    "$PYTHON" -m venv .venv
fi
stamp=.venv/.meldcam-setup
want=$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -d' ' -f1)
have=$(cat "$stamp" 2>/dev/null || true)
# a full set-up serves too; a runtime one does not test
if [ "$have" != "$want full" ] && { [ "$level" = full ] || [ "$have" != "$want runtime" ]; }; then
    echo "meldcam setup: installing packages ($level)"
    if [ "$level" = full ]; then
        # .venv comes to 6.8 GB, 5.3 GB of it PyTorch's CUDA build (the one here that pairs
        # with a torchvision), and pip unpacks beside it: say so before pip fails with
        # "No space left on device"
        free_gb=$(df -Pk . | awk 'NR == 2 {print int($4 / 1048576)}')
        if [ "$free_gb" -lt 9 ]; then
            echo "meldcam setup: only $free_gb GB free here; the test and training packages need" \
                "about 9 GB (the runtime alone, --runtime, about 0.5 GB)" >&2
        fi
    fi
    .venv/bin/python -m pip install --quiet --no-cache-dir --upgrade pip
    if [ "$level" = full ]; then
        .venv/bin/python -m pip install --quiet --no-cache-dir -e ".[dev,train]"
    else
        .venv/bin/python -m pip install --quiet --no-cache-dir -e .
    fi
    echo "$want $level" > "$stamp"
fi
# the translations: compiled catalogs (.mo) from the committed .po files, every run (cheap)
.venv/bin/python scripts/i18n.py compile
if [ "$level" = runtime ]; then
    exit 0
fi
# Debian packages: chromium for the end-to-end web tests (Playwright downloads no browser) and the
# fonts the synthetic tile generators draw with (datasets/tiles_synth.py FONT_NAMES and
# datasets/tile_printings.py FONT_FAMILIES: the same fonts
# make the same training data; the shipped models were trained with exactly these). PostgreSQL and
# Redis: the tests' throwaway servers (scripts/services.sh), for the several-node deployment.
apt_packages="chromium postgresql redis-server fonts-dejavu-core fonts-dejavu-extra fonts-liberation fonts-freefont-ttf
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
