#!/usr/bin/env bash
# Render the synthetic training set, train the card detector and export it, on a GPU machine that
# has PyTorch but no internet (ultralytics travels as wheels in .whl/, see models/MODEL_CARD.md).
# Usage: bash models/gpu_train.sh OUT_DIR [IMAGES] [BUDGET_SECONDS]
# Writes OUT_DIR/{best.pt,last.pt,results.csv,cards.onnx,train.log}; the whole run fits BUDGET_SECONDS.
set -euo pipefail
out=${1:?usage: gpu_train.sh OUT_DIR [IMAGES] [BUDGET_SECONDS]}
images=${2:-12000}
budget=${3:-540}
started=$(date +%s)
mkdir -p "$out"
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 YOLO_OFFLINE=1 YOLO_CONFIG_DIR=/tmp/yolo-config
if compgen -G ".whl/*.whl" >/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
  export PYTHONPATH=/tmp/site:$PWD
fi
data=/tmp/cards-data
python3 -m web.cli datasets render --n "$images" --out "$data" --seed 1 --imgsz 512 --workers "${RENDER_WORKERS:-0}" \
  --val-fraction 0.05 2>/dev/null | tee "$out/train.log"
# what is left of the budget, less a minute for the final validation, export and copying
hours=$(python3 -c "print(max(0.01, ($budget - ($(date +%s) - $started) - 60) / 3600))")
echo "training for $hours h" | tee -a "$out/train.log"
python3 -m web.cli train --data "$data/data.yaml" --hours "$hours" --device "${DEVICE:-0}" --workers "${WORKERS:-16}" \
  --runs /tmp/runs --export "$out/cards.onnx" 2>&1 | grep -v "^ *[0-9]*/[0-9]* .*it/s\]$" | tee -a "$out/train.log" || true
cp /tmp/runs/train/weights/best.pt /tmp/runs/train/weights/last.pt /tmp/runs/train/results.csv "$out/" || true
echo "total $(( $(date +%s) - started )) s" | tee -a "$out/train.log"
