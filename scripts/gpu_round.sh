#!/bin/bash
# A detector round of training.train on a GPU machine lent by this workplace's `device`
# tool, which copies the checkout there (docs/experiments/dominoes.md, "A detector round on a
# GPU"). That machine has PyTorch but no package index and maybe not this machine's fonts (the
# card scenes' index lettering), so they travel in .device_carry (git-ignored):
#
#   here:   scripts/gpu_round.sh pack
#   there:  scripts/gpu_round.sh run KIND ROUND EPOCHS [more training.train arguments]
#           (carry .device_carry; START=FILE: start from that detector instead of models/')
#
# The round starts from the shipped detector rebuilt (--stage finetune on a fresh checkout) and
# trains until TRAIN_SECONDS (default 480) after the script's start, its epochs fitted to the time
# rendering left (EPOCHS sets the schedule only until the first epoch's pace is known);
# its last.pt, results.csv, log and exported ONNX file come back in $OUT (last.pt also while it
# trains, should the command run out of time). E.g. scripts/gpu_round.sh run dominoes
# detector_obb_r7 16; scripts/gpu_round.sh run cards detector_all_looks 12. Leaving look 4 out
# of the domino round: START=.device_carry/domino_detector_looks1-3.onnx scripts/gpu_round.sh
# run dominoes detector_obb_r7 16 --scenes synth_r6=0 --scenes synth_r7=0.
# (That one also ran on 2 CPU cores, its epochs fitted to a --deadline:
# docs/experiments/dominoes.md, "Leave-one-out".)
# A card detector brought back runs in floats until quantised here: python -m training.quantise
# --kind cards (docs/experiments/cards.md, "Speed").
set -u
cd "$(dirname "$0")/.." || exit 1
carry=.device_carry

if [ "${1:-}" = pack ]; then
    mkdir -p $carry/fonts
    .venv/bin/python -m pip download -q --no-deps --only-binary=:all: -d $carry \
        "ultralytics==$(.venv/bin/python -c 'import ultralytics; print(ultralytics.__version__)')" \
        ultralytics-thop==2.2.3 || exit 1
    .venv/bin/python - <<'PY' || exit 1
import shutil
from datasets.cards_synth import _font_files
from datasets.tiles_synth import font_paths
for path in {*_font_files().values(), *font_paths()}:
    if path.startswith("/usr/share/fonts"):
        shutil.copy(path, ".device_carry/fonts/")
PY
    # the domino detector before look 4 (commit 5527d16): the start of the round leaving it out
    git show 5527d16:models/domino_detector.onnx > $carry/domino_detector_looks1-3.onnx
    du -sh $carry
    exit 0
fi

[ "${1:-}" = run ] && [ $# -ge 4 ] || { sed -n 2,16p "$0"; exit 2; }
kind=$2 round=$3 epochs=$4
shift 4
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site \
    $carry/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
mkdir -p /usr/share/fonts/truetype/meldcam && cp -n $carry/fonts/*.ttf /usr/share/fonts/truetype/meldcam/
nvidia-smi --query-gpu=name --format=csv,noheader
work=/tmp/gpu_round/$kind out=/tmp/gpu_round/out
mkdir -p "$work" $out /tmp/gpu_round/start && cp models/*.onnx $out/
if [ -n "${START:-}" ]; then
    cp "$START" "$out/$(python3 -c "from training.shipped import RECIPES; print(RECIPES['$kind'].detector_onnx)")"
fi
cp $out/*.onnx /tmp/gpu_round/start/  # what the round starts from: only what changed comes back
run=$work/runs/$round
(while sleep 10; do
    cp $run/weights/last.pt "$OUT/last.pt.part" 2>/dev/null && mv "$OUT/last.pt.part" "$OUT/last.pt"
    cp $run/results.csv "$OUT/" 2>/dev/null
done) &
copier=$!
# EPOCHS_ONLY=1: no deadline, the round's epochs however long they take
budget=${TRAIN_SECONDS:-480}
deadline=()
[ "${EPOCHS_ONLY:-0}" = 1 ] || deadline=(--deadline $(($(date +%s) + budget)))
timeout $((budget + 90)) python3 -m training.train --kind "$kind" --stage finetune \
    --round "$round" --epochs "$round=$epochs" --work "$work" --out $out "${deadline[@]}" \
    --device "${GPU_DEVICE:-0}" --batch 64 --workers 12 --procs 16 "$@" > "$OUT/log.txt" 2>&1
echo "training.train: exit $?"
kill $copier
grep -v "━" "$OUT/log.txt" | tail -25
cp $run/weights/last.pt $run/results.csv "$OUT/" 2>/dev/null
for f in $out/*.onnx; do
    cmp -s "$f" "/tmp/gpu_round/start/$(basename "$f")" || cp "$f" "$OUT/"
done
ls -la "$OUT"
