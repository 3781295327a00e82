#!/usr/bin/env bash
# Train the shipped card detector (models/cards.pt) further on a GPU machine that has PyTorch but no internet:
# table renders of both deck families (rendered there), cards-rf's train part and a share of uno-cards-rf
# (carried as files), with models/recipe_continue.yaml, all within a time budget.
# Usage, from the repository root: bash models/gpu_train.sh OUT_DIR [BUDGET_SECONDS] [CARRIED] [STAGE]
#   STAGE tables (default): from models/cards.pt (recipe_continue.yaml) on table and busy-table renders, mixed
#     renders and the real photos; small: from models/cards.pt (recipe_refine.yaml) on renders of every kind
#     (close-ups and a few cards too; tables and busy tables of the standard prints the shipped detector never saw:
#     black stock, jumbo indices; of standard decks whose indices are printed in other typefaces; of the real classic
#     UNO deck's ring face) and the real photos, as taken and laid small on rendered tables (models/small_real.py,
#     SMALL_FRAMES frames, default 2400; CARRIED/cards-real-dev's photos too where carried, only laid small);
#     closeups: from CARRIED/start.pt (the tables stage's best.pt; recipe_refine.yaml)
#     on cards held up close and a few cards, some tables, and the real photos again, so that what the tables
#     stage left out of its renders (a card filling a webcam frame) is not forgotten.
#   RECIPE replaces the stage's recipe; several, comma-separated, train one network each at once on the same data
#     (the loader processes shared), each into OUT_DIR/NAME/, NAME the recipe's file name without .yaml.
#   ARMS (instead of RECIPE): networks that differ by recipe or by data, trained at once, space-separated entries
#     NAME:RECIPE[:LEFT_OUT], LEFT_OUT comma-separated data folders the arm trains without (a render's name as below,
#     small-real, cards-rf, uno-cards-rf), each into OUT_DIR/NAME/ with its own OUT_DIR/NAME/data.yaml. A name that
#     names no folder of the stage stops the script before anything is rendered. For instance
#     ARMS="all:models/recipe_refine.yaml no-prints:models/recipe_refine.yaml:table-prints,crowded-prints
#     no-small:models/recipe_refine.yaml:small-real" (the next call's question: models/EXPERIMENTS.md, 42nd round;
#     on the CPU the standard tables' precision fell without the prints, without the typefaces, and, half as far,
#     without the real photos laid small, 46th-49th rounds: an hour on 2 cores moves them the wrong way whatever is left
#     out, so ask all and no-small on a GPU; average each arm's weights with the start's before scoring).
#     Each arm trains for the same time: one without a folder sees the rest more often.
#   CARRIED (default .gpu, ignored by git, never committed; `python -m models.gpu_carry --out .gpu` writes it all and
#   checks that it and the working tree fit the 64 MB carried to the device) holds
#     whl/*.whl                    ultralytics, ultralytics-thop, ultralytics-platform (pip download --no-deps)
#     datasets/cards-rf/           its labels.csv and the photos of its train part (vision/splits.py), JPEG 78
#     uno-cards-rf/                python -m models.uno_cards_rf --out CARRIED/uno-cards-rf --share 0.15 --side 320
#                                  --quality 60 (the working tree and CARRIED must fit the device's 64 MB)
#     cards-real-dev/ (optional)   python -m models.real_dev_data --out CARRIED/cards-real-dev (its train half's
#                                  photos the shipped detector reads as labelled; eighteenth round, not kept)
# Writes OUT_DIR/{best.pt,last.pt,averaged.pt,results.csv,train.log}, averaged.pt the last epoch averaged half and half
# with the start (models/checkpoint_average.py; EXPERIMENTS.md, 47th and 59th rounds). Export on any machine afterwards:
#   tableref train --export-from OUT_DIR/best.pt --export models/cards.onnx
#   tableref train --quantize          # the 8-bit copies the product runs (models/quantize.py)
# RENDER_SCALE multiplies the render counts (a dry run on a CPU: RENDER_SCALE=0.01 DEVICE=cpu WORKERS=2 BATCH=8).
# GREY_SHARE (default 0.05): the share of every render taken as by a camera without colour (`datasets render
#   --grey-share`): the shipped detector never saw a grey frame; cards-rf tune part: its grey photos 30 of 38 corners
#   read against 244 of 266, grey table renders 849 cards against 1,047 (fifty-first round); 0: as before.
# Renders use seeds 4001-4052 (`tableref eval` renders seeds 7, 11, 13, 17, 19 and 23); nothing is mirrored.
# CLOSEUP_SCALE (default 1) multiplies the small stage's close-ups and few-card renders (cards held up to a camera):
#   the sixtieth round's one long run read tables far better but lost three UNO close-ups, the part of its data it
#   held least of (EXPERIMENTS.md, 60th and 62nd rounds).
# SEED_OFFSET (default 0) is added to every render's and small-real's seed: another round's data of the same kinds
#   (100: seeds 4101-4152), so that two rounds' networks soup over more data than one.
set -euo pipefail
out=${1:?usage: gpu_train.sh OUT_DIR [BUDGET_SECONDS] [CARRIED] [STAGE]}
budget=${2:-540}
carried=${3:-.gpu}
stage=${4:-tables}
started=$(date +%s)
elapsed() { echo $(( $(date +%s) - started )); }
python=${PYTHON:-python3}
mkdir -p "$out"
log="$out/train.log"
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 YOLO_OFFLINE=1 YOLO_CONFIG_DIR=/tmp/yolo-config
if compgen -G "$carried/whl/*.whl" >/dev/null; then
  "$python" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site "$carried"/whl/*.whl
  export PYTHONPATH=/tmp/site:$PWD
fi
data=${DATA:-/tmp/cards-data}
scale=${RENDER_SCALE:-1}
grey_share=${GREY_SHARE:-0.05}
render_budget=${RENDER_BUDGET:-150}
rate=""
planned=(cards-rf small-real uno-cards-rf)  # the data folders a stage may hold (render adds its own while planning)
planning=""
render() {  # NAME N SEED [OPTIONS...]: fewer images where the render budget would be overrun; only named if planning
  local name=$1 n=$2 seed=$3 begun
  if [ -n "$planning" ]; then planned+=("$name"); return; fi
  shift 3
  n=$("$python" -c "print(max(1, round($n * $scale)))")
  if [ -n "$rate" ]; then
    n=$("$python" -c "print(min($n, int(($render_budget - $(elapsed)) * $rate)))")
  fi
  if [ "$n" -lt 20 ]; then echo "$name: skipped (under 20 images left in the render budget)" | tee -a "$log"; return; fi
  begun=$(date +%s)
  "$python" -m web.cli datasets render --n "$n" --out "$data/$name" --seed "$((seed + ${SEED_OFFSET:-0}))" --imgsz 640 --workers 0 \
    --val-fraction 0.04 --grey-share "$grey_share" "$@" 2>&1 | grep -v "images$" | tee -a "$log"
  rate=$("$python" -c "print($n / max(1, $(date +%s) - $begun))")
}
stage_renders() {  # the stage's start, recipe and renders
case "$stage" in
  tables)
    model=models/cards.pt recipe=models/recipe_continue.yaml
    render table-standard 1800 4001 --kind table --family standard --frame 4:3
    render table-uno 1600 4002 --kind table --family uno --frame 4:3
    render crowded-standard 1200 4003 --kind crowded --family standard --frame 4:3
    render crowded-uno 900 4004 --kind crowded --family uno --frame 4:3
    render mixed 2000 4005 ;;
  closeups)
    model=$carried/start.pt recipe=models/recipe_refine.yaml
    render closeup 1500 4011 --kind closeup
    render few 1000 4012 --kind few
    render table-standard 700 4013 --kind table --family standard --frame 4:3
    render crowded-standard 500 4014 --kind crowded --family standard --frame 4:3
    render table-uno 500 4015 --kind table --family uno --frame 4:3
    render crowded-uno 300 4016 --kind crowded --family uno --frame 4:3 ;;
  small)
    model=models/cards.pt recipe=models/recipe_refine.yaml  # the twentieth and forty-first rounds' lesson
    render table-standard 1300 4021 --kind table --family standard --frame 4:3
    render table-uno 1100 4022 --kind table --family uno --frame 4:3
    render crowded-standard 900 4023 --kind crowded --family standard --frame 4:3
    render crowded-uno 700 4024 --kind crowded --family uno --frame 4:3
    prints=(--family standard --frame 4:3 --design standard-black-gold --design standard-black-white --design standard-jumbo)
    render table-prints 500 4028 --kind table "${prints[@]}"
    render crowded-prints 300 4029 --kind crowded "${prints[@]}"
    # standard indices in other typefaces; UNO digits stay in the print's own (with UNO digits in these, the
    # 2023 design's photographed 2s were read as 5s: thirty-ninth and forty-first rounds)
    typefaces=(--family standard --frame 4:3 --typeface roboto-black --typeface roboto-condensed --typeface dejavu-serif)
    render table-typefaces 600 4041 --kind table "${typefaces[@]}"
    render crowded-typefaces 300 4042 --kind crowded "${typefaces[@]}"
    ring=(--family uno --frame 4:3 --design uno-ring)  # the real classic deck's ring face (issue 20)
    render table-ring 700 4051 --kind table "${ring[@]}"
    render crowded-ring 400 4052 --kind crowded "${ring[@]}"
    close=${CLOSEUP_SCALE:-1}
    render closeup "$("$python" -c "print(round(900 * $close))")" 4025 --kind closeup
    render few "$("$python" -c "print(round(600 * $close))")" 4026 --kind few
    render mixed 500 4027 ;;
  *) echo "unknown stage $stage (tables, closeups or small)" >&2; exit 2 ;;
esac
}
planning=1 stage_renders
# the arms: NAME:RECIPE[:LEFT_OUT]; RECIPE=a.yaml,b.yaml is arms named after their recipes on all the data
if [ -n "${ARMS:-}" ]; then
  read -r -a arms <<<"$ARMS"
else
  IFS=, read -r -a recipes <<<"${RECIPE:-$recipe}"
  arms=()
  for each in "${recipes[@]}"; do arms+=("$(basename "$each" .yaml):$each"); done
fi
for arm in "${arms[@]}"; do
  IFS=: read -r name arm_recipe left_out <<<"$arm"
  if [ -z "$name" ] || [ ! -f "$arm_recipe" ]; then echo "arm '$arm': need NAME:RECIPE with RECIPE a file" >&2; exit 2; fi
  IFS=, read -r -a left <<<"${left_out:-}"
  for folder in "${left[@]}"; do
    if [[ " ${planned[*]} " != *" $folder "* ]]; then
      echo "arm $name: no data folder $folder in stage $stage (${planned[*]})" >&2; exit 2
    fi
  done
done
planning="" stage_renders
"$python" -m models.detector_data --datasets "$carried/datasets" --out "$data/cards-rf" --part train | tee -a "$log"
if [ "$stage" = small ]; then  # the real photos lying small on rendered tables, 8 writers at once
  small_n=$("$python" -c "print(max(1, round(${SMALL_FRAMES:-2400} * $scale / 8)))")
  sources=("$data/cards-rf" "$carried/uno-cards-rf")
  if [ -d "$carried/cards-real-dev/images/train" ]; then sources+=("$carried/cards-real-dev"); fi
  for seed in 4031 4032 4033 4034 4035 4036 4037 4038; do
    "$python" -m models.small_real --from "${sources[@]}" --out "$data/small-real" \
      --n "$small_n" --seed "$((seed + ${SEED_OFFSET:-0}))" >>"$log" 2>&1 &
  done
  wait
  tail -n 8 "$log"
fi
folders=()
for folder in "$data"/*/; do [ "$(basename "$folder")" = cards-rf ] || folders+=("${folder%/}"); done
folders+=("$data/cards-rf" "$data/cards-rf" "$data/cards-rf")  # the real standard photos, three times
if [ -d "$carried/uno-cards-rf/images/train" ]; then folders+=("$(realpath "$carried/uno-cards-rf")"); fi
arm_data() {  # NAME LEFT_OUT: the arm's data.yaml, over every folder but those LEFT_OUT (comma-separated) names
  local name=$1 left_out=$2 kept=() folder
  for folder in "${folders[@]}"; do
    [[ ",$left_out," == *",$(basename "$folder"),"* ]] || kept+=("$folder")
  done
  mkdir -p "$data-arms"  # beside the data folder: a second run over the same DATA must not take it for data
  "$python" -m models.detector_data --combine "$data-arms/$name.yaml" "${kept[@]}" | tee -a "$log"
  echo "arm $name: ${#kept[@]} of ${#folders[@]} data folders (left out: ${left_out:-none})" | tee -a "$log"
}
# what is left of the budget, less 45 s for caching the images, the final validation and copying (34 s for the
# tables stage on an H100)
hours=$("$python" -c "print(max(0.005, ($budget - $(elapsed) - ${RESERVE:-45}) / 3600))")
echo "rendered in $(elapsed) s; training for $hours h" | tee -a "$log"
train_one() {  # NAME RECIPE_FILE DATA_YAML TO: one network, its checkpoints copied to TO as it trains
  local name=$1 recipe=$2 data_yaml=$3 to=$4 runs keeper
  runs=/tmp/runs/$name
  mkdir -p "$to"
  cp "$data_yaml" "$to/data.yaml"
  ( while sleep 20; do cp -f "$runs"/train/weights/last.pt "$to/" 2>/dev/null || true; done ) &
  keeper=$!
  "$python" -m web.cli train --data "$data_yaml" --recipe "$recipe" --model "$model" --hours "$hours" \
    --device "${DEVICE:-0}" --workers "$workers" ${BATCH:+--batch "$BATCH"} --runs "$runs" --no-export 2>&1 \
    | grep -v -E "it/s\]$|s/it\]$" | sed "s|^|[$name] |" | tee -a "$log" || true
  kill "$keeper" 2>/dev/null || true
  cp "$runs"/train/weights/best.pt "$runs"/train/weights/last.pt "$runs"/train/results.csv "$to/" || true
  # half and half with the start (models/checkpoint_average.py): what every fine-tune here is judged as
  "$python" -m models.checkpoint_average "$model" "$to/last.pt" --weight 0.5 --out "$to/averaged.pt" | tee -a "$log" || true
}
# several arms train at once, the loader processes shared, each into OUT_DIR/NAME/; one writes into OUT_DIR itself
workers=$(( ${WORKERS:-16} / ${#arms[@]} ))
for arm in "${arms[@]}"; do
  IFS=: read -r name arm_recipe left_out <<<"$arm"
  arm_data "$name" "${left_out:-}"
  to=$out/$name
  if [ "${#arms[@]}" -eq 1 ]; then to=$out; fi
  train_one "$name" "$arm_recipe" "$data-arms/$name.yaml" "$to" &
done
wait
echo "total $(elapsed) s" | tee -a "$log"
