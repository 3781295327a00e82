#!/usr/bin/env bash
# Fine-tune the shipped card detector (models/cards.pt) on the CPU: table-camera renders of both deck
# families (tables and busy tables, 640 x 480), mixed renders, and cards-rf's train part (twice), then
# export it to ONNX. The recipe of the 2026-11-25 fine-tune (models/EXPERIMENTS.md, "Detector fine-tune on the CPU").
# Usage, from the repository root with the training extra installed:
#   bash models/cpu_finetune.sh OUT_DIR HOURS [DATASETS]
# Writes OUT_DIR/{table-uno,...}/ (renders), OUT_DIR/cards-rf/ (links to the photos), OUT_DIR/data.yaml,
# OUT_DIR/runs/train/ (ultralytics' run: weights/best.pt, results.csv) and OUT_DIR/cards.onnx.
# Renders use seeds 3001-3005 (`tableref eval` renders seeds 7 and 11); nothing is mirrored.
set -euo pipefail
out=${1:?usage: cpu_finetune.sh OUT_DIR HOURS [DATASETS]}
hours=${2:?usage: cpu_finetune.sh OUT_DIR HOURS [DATASETS]}
datasets=${3:-../shared/datasets}
python=${PYTHON:-.venv/bin/python}
export YOLO_OFFLINE=1
mkdir -p "$out"
render() {  # NAME N SEED [OPTIONS...]
  local name=$1 n=$2 seed=$3
  shift 3
  "$python" -m web.cli datasets render --n "$n" --out "$out/$name" --seed "$seed" --imgsz 640 --workers 2 \
    --val-fraction 0.04 "$@"
}
render table-uno 500 3001 --kind table --family uno --frame 4:3
render table-standard 500 3002 --kind table --family standard --frame 4:3
render crowded-uno 300 3003 --kind crowded --family uno --frame 4:3
render crowded-standard 300 3004 --kind crowded --family standard --frame 4:3
render mixed 400 3005
"$python" -m models.detector_data --datasets "$datasets" --out "$out/cards-rf" --part train
"$python" -m models.detector_data --combine "$out/data.yaml" "$out"/table-uno "$out"/table-standard \
  "$out"/crowded-uno "$out"/crowded-standard "$out"/mixed "$out"/cards-rf "$out"/cards-rf
"$python" -m web.cli train --data "$out/data.yaml" --recipe models/recipe_finetune.yaml --model models/cards.pt \
  --device cpu --hours "$hours" --workers 2 --runs "$out/runs" --export "$out/cards.onnx"
