#!/bin/bash
# The device check of issue 18 (see gpu_run_vs_lmeval.py). SRC: the genbench source under test (default: the
# src/ beside this script's folder); WORK: the requests (made with `gpu_run_vs_lmeval.py requests`); MAIN_SRC: a
# second genbench source to compare (e.g. the main branch); ORDER: the order of the sides (default "new main
# lmeval"); RESULTS: where the JSON files go. lm_eval must be importable. Each side runs in its own process, with a
# time limit; then the same on the machine's CPU with the tiny models (CPU_MODELS), main too when CPU_MAIN is set.
here=$(cd "$(dirname "$0")" && pwd)
B=$here/gpu_run_vs_lmeval.py
SRC=${SRC:-$here/../src}
WORK=${WORK:?WORK: the requests file}
DEVICE=${DEVICE:-cuda}
MODEL=${MODEL:-gpt2-small}
RUNS=${RUNS:-2}
R=${RESULTS:-/tmp/results}
ORDER=${ORDER:-new main lmeval}
mkdir -p "$R"
base=$PYTHONPATH
nvidia-smi -L 2>/dev/null
python3 -c "import torch, transformers; print('torch', torch.__version__, 'transformers', transformers.__version__, 'cuda', torch.cuda.is_available() and torch.cuda.get_device_name(0), 'threads', torch.get_num_threads())"

one_side() {  # one_side NAME PREFIX ARGS...: run side NAME (new, main, lmeval), results in $R/PREFIX-NAME.json
  local name=$1 prefix=$2 limit=$3
  shift 3
  case $name in
    new) PYTHONPATH=$SRC:$base timeout "$limit" python3 "$B" side --side genbench --label genbench-new "$@" --json "$R/$prefix-new.json" ;;
    main) [ -n "$MAIN_SRC" ] && PYTHONPATH=$MAIN_SRC:$base timeout "$limit" python3 "$B" side --side genbench --label genbench-main "$@" --json "$R/$prefix-main.json" ;;
    lmeval) timeout "$limit" python3 "$B" side --side lmeval --label lm-eval "$@" --json "$R/$prefix-lmeval.json" ;;
  esac
}
report() {  # report PREFIX: genbench-new first, then the others that ran
  local files=("$R/$1-new.json")
  for name in main lmeval; do [ -f "$R/$1-$name.json" ] && files+=("$R/$1-$name.json"); done
  python3 "$B" report "${files[@]}" --json "$R/$1-report.json"
}

python3 "$B" build --model "$MODEL" --path /tmp/model-"$MODEL" || exit 1
for name in $ORDER; do
  extra=()
  [ "$name" = new ] && extra=(--cpu-check)
  one_side "$name" gpu "${SIDE_S:-150}" --work "$WORK" --path /tmp/model-"$MODEL" --device "$DEVICE" --runs "$RUNS" "${extra[@]}"
done
report gpu
# the CPU of the same machine: the tiny models (without and with a BOS token), float32, batch size 8
for tiny in ${CPU_MODELS:-tiny tiny-bos}; do
  python3 "$B" build --model "$tiny" --path /tmp/model-"$tiny" >/dev/null || continue
  for name in $ORDER; do
    { [ "$name" = main ] && [ -z "$CPU_MAIN" ]; } && continue
    one_side "$name" "cpu-$tiny" "${CPU_SIDE_S:-60}" --work "$WORK" --path /tmp/model-"$tiny" --device cpu --configs float32:8 --runs "$RUNS"
  done
  report "cpu-$tiny"
done
