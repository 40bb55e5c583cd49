#!/bin/bash
# The device check of issue 18 (see gpu_run_vs_lmeval.py). SRC: the genbench source under test (default: the
# src/ beside this script's folder); WORK: the requests (made with `gpu_run_vs_lmeval.py requests`); MAIN_SRC: a
# second genbench source to compare (e.g. the main branch); RESULTS: where the JSON files go. lm_eval must be
# importable. Each side runs in its own process, with a time limit.
here=$(cd "$(dirname "$0")" && pwd)
B=$here/gpu_run_vs_lmeval.py
SRC=${SRC:-$here/../src}
WORK=${WORK:?WORK: the requests file}
DEVICE=${DEVICE:-cuda}
MODEL=${MODEL:-gpt2-small}
RUNS=${RUNS:-2}
R=${RESULTS:-/tmp/results}
mkdir -p "$R"
base=$PYTHONPATH
nvidia-smi -L 2>/dev/null
python3 -c "import torch, transformers; print('torch', torch.__version__, 'transformers', transformers.__version__, 'cuda', torch.cuda.is_available() and torch.cuda.get_device_name(0), 'threads', torch.get_num_threads())"
python3 $B build --model "$MODEL" --path /tmp/model-"$MODEL" || exit 1
common=(--work "$WORK" --path /tmp/model-"$MODEL" --device "$DEVICE" --runs "$RUNS")
PYTHONPATH=$SRC:$base timeout ${SIDE_S:-150} python3 $B side --side genbench --label genbench-new "${common[@]}" --cpu-check --json "$R/gpu-new.json"
if [ -n "$MAIN_SRC" ]; then
  PYTHONPATH=$MAIN_SRC:$base timeout ${SIDE_S:-150} python3 $B side --side genbench --label genbench-main "${common[@]}" --json "$R/gpu-main.json"
fi
timeout ${SIDE_S:-150} python3 $B side --side lmeval --label lm-eval "${common[@]}" --json "$R/gpu-lmeval.json"
python3 $B report "$R"/gpu-new.json $( [ -n "$MAIN_SRC" ] && echo "$R/gpu-main.json" ) "$R/gpu-lmeval.json" --json "$R/gpu-report.json"
# the CPU of the same machine: the tiny models (without and with a BOS token), float32, batch size 8
for tiny in ${CPU_MODELS:-tiny tiny-bos}; do
  python3 $B build --model $tiny --path /tmp/model-$tiny >/dev/null || continue
  c=(--work "$WORK" --path /tmp/model-$tiny --device cpu --configs float32:8 --runs "$RUNS")
  PYTHONPATH=$SRC:$base timeout ${CPU_SIDE_S:-60} python3 $B side --side genbench --label genbench-new "${c[@]}" --json "$R/cpu-$tiny-new.json"
  if [ -n "$MAIN_SRC" ] && [ -n "$CPU_MAIN" ]; then
    PYTHONPATH=$MAIN_SRC:$base timeout ${CPU_SIDE_S:-60} python3 $B side --side genbench --label genbench-main "${c[@]}" --json "$R/cpu-$tiny-main.json"
  fi
  timeout ${CPU_SIDE_S:-60} python3 $B side --side lmeval --label lm-eval "${c[@]}" --json "$R/cpu-$tiny-lmeval.json"
  python3 $B report "$R/cpu-$tiny-new.json" $( [ -n "$MAIN_SRC" ] && [ -n "$CPU_MAIN" ] && echo "$R/cpu-$tiny-main.json" ) "$R/cpu-$tiny-lmeval.json"
done
