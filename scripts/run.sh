#!/usr/bin/env bash
# Sets up everything from nothing (see setup.sh), then starts meldcam.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if .venv/bin/meldcam serve --help >/dev/null 2>&1; then
    exec .venv/bin/meldcam serve "$@"
fi
# The web app is not there yet: show what the command line can do.
exec .venv/bin/meldcam --help
