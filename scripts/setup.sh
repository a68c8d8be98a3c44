#!/usr/bin/env bash
# Sets up everything meldcam needs from nothing: the virtual environment at .venv/ and the
# project with its test and training extras, and the Debian packages the tests and the scene
# generators use. With --runtime, only what serving needs: the project without extras (no torch,
# ultralytics or playwright). Safe to run again; a second run only checks.
# It prints only its own progress lines: what venv, pip, setuptools and apt say goes to
# .venv/meldcam-setup.log (the last run that installed anything), which a failed step names.
set -euo pipefail
cd "$(dirname "$0")/.."
level=full
if [ "${1:-}" = "--runtime" ]; then
    level=runtime
fi
PYTHON=${PYTHON:-python3}
mkdir -p .venv
log=$PWD/.venv/meldcam-setup.log
logged=0

# quietly WHAT COMMAND...: COMMAND's output into the log (begun afresh by a run's first step);
# if it fails, the log is named and its last lines shown
quietly() {
    local what=$1
    shift
    if [ "$logged" = 0 ]; then
        : >"$log"
        logged=1
    fi
    echo "== $what: $*" >>"$log"
    if ! "$@" >>"$log" 2>&1; then
        echo "meldcam setup: $what failed; the whole output is in $log, ending:" >&2
        tail -n 20 "$log" >&2
        exit 1
    fi
}

if [ ! -x .venv/bin/python ]; then
    echo "meldcam setup: creating .venv"
    quietly "creating .venv" "$PYTHON" -m venv .venv
fi
stamp=.venv/.meldcam-setup
want=$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -d' ' -f1)
have=$(cat "$stamp" 2>/dev/null || true)
# a full set-up serves too; a runtime one does not test
if [ "$have" != "$want full" ] && { [ "$level" = full ] || [ "$have" != "$want runtime" ]; }; then
    echo "meldcam setup: installing packages ($level; pip's output goes to $log)"
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
    quietly "upgrading pip" .venv/bin/python -m pip install --no-cache-dir --upgrade pip
    if [ "$level" = full ]; then
        quietly "installing packages" .venv/bin/python -m pip install --no-cache-dir -e ".[dev,train]"
    else
        quietly "installing packages" .venv/bin/python -m pip install --no-cache-dir -e .
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
        quietly "apt-get update" apt-get update -qq
        quietly "installing Debian packages" env DEBIAN_FRONTEND=noninteractive \
            apt-get install -y -qq $missing
    else
        echo "meldcam setup: please install these Debian packages:$missing" >&2
    fi
fi
