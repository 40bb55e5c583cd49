#!/bin/bash
# The device check of chat-template runs and sharded runs on one GPU (issue 29's "at cluster scale").
#
# A gpt2-small-shaped model initialised at random (`models make-tiny --shape gpt2-small`), rendered through a chat
# template file, runs every shipped task at shots 0 and 5 with `genbench-cli run`, whole process each time:
#   one      one process on the GPU, float32, batch 16 (timed)
#   shards   two shards of the same run at once on the same GPU (`--shard 1/2`, `--shard 2/2`), then merge-shards
#            (timed from the first start to the end of the merge); results compared with `one`
#   bf16     one process, bfloat16, batch 16 (timed)
#   plain    one process without the chat template (timed), to see what rendering costs
#   cpu      the same machine's CPU, float32, batch 16, the first LIMIT examples, compared with the GPU on them
# Results: RESULTS (default $OUT or /tmp/gpu-chat-shards): times.txt, compare-*.json. Needs genbench importable
# (PYTHONPATH=src) with genbench[hf]'s dependencies. DEVICE (default cuda) and SHAPE (default gpt2-small) try it
# elsewhere: DEVICE=cpu SHAPE=tiny-chat LIMIT=5.
set -u
here=$(cd "$(dirname "$0")" && pwd)
R=${RESULTS:-${OUT:-/tmp/gpu-chat-shards}}
LIMIT=${LIMIT:-20}
DEVICE=${DEVICE:-cuda}
SHAPE=${SHAPE:-gpt2-small}
W=${WORK:-/tmp/gpu-chat-shards-work}
mkdir -p "$R" "$W"
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONUNBUFFERED=1
G=(python3 -m genbench.cli -q)
nvidia-smi -L 2>/dev/null
python3 -c "import torch, transformers; print('torch', torch.__version__, 'transformers', transformers.__version__, 'cuda', torch.cuda.is_available() and torch.cuda.get_device_name(0), 'threads', torch.get_num_threads())"
"${G[@]}" models make-tiny --shape "$SHAPE" "$W/model" || exit 1
cat >"$W/chat.jinja" <<'EOF'
{%- for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}<|end|>{% endfor -%}
{%- if add_generation_prompt %}<|assistant|>{% endif -%}
EOF
TASKS=${TASKS:-all}
COMMON=(-m "hf:$W/model" -t "$TASKS" --shots 0,5 --max-new-tokens 32)
CHAT=(--apply-chat-template "$W/chat.jinja" --system-instruction "Answer briefly.")

timed() {  # timed NAME COMMAND...: run it, append "NAME seconds rc" to times.txt
  local name=$1 start end rc
  shift
  start=$(date +%s.%N)
  timeout "${STEP_S:-240}" "$@" >"$R/$name.log" 2>&1
  rc=$?
  end=$(date +%s.%N)
  echo "$name $(python3 -c "print(round($end - $start, 2))") rc=$rc" | tee -a "$R/times.txt"
}

timed one "${G[@]}" run "${COMMON[@]}" "${CHAT[@]}" --model-args device=$DEVICE,batch_size=16 --no-cache -o "$W/one"
start=$(date +%s.%N)
timeout "${STEP_S:-240}" "${G[@]}" run "${COMMON[@]}" "${CHAT[@]}" --model-args device=$DEVICE,batch_size=16 --shard 1/2 \
  -o "$W/sharded" >"$R/shard1.log" 2>&1 &
timeout "${STEP_S:-240}" "${G[@]}" run "${COMMON[@]}" "${CHAT[@]}" --model-args device=$DEVICE,batch_size=16 --shard 2/2 \
  -o "$W/sharded" >"$R/shard2.log" 2>&1 &
wait
"${G[@]}" merge-shards "$W/sharded/shards" -o "$W/sharded" >"$R/merge.log" 2>&1
echo "shards+merge $(python3 -c "print(round($(date +%s.%N) - $start, 2))") rc=$?" | tee -a "$R/times.txt"
timed bf16 "${G[@]}" run "${COMMON[@]}" "${CHAT[@]}" --model-args device=$DEVICE,dtype=bfloat16,batch_size=16 --no-cache -o "$W/bf16"
timed plain "${G[@]}" run "${COMMON[@]}" --model-args device=$DEVICE,batch_size=16 --no-cache -o "$W/plain"
timed gpu-limit "${G[@]}" run "${COMMON[@]}" "${CHAT[@]}" --model-args device=$DEVICE,batch_size=16 --limit "$LIMIT" --no-cache \
  -o "$W/gpu-limit"
timed cpu-limit "${G[@]}" run "${COMMON[@]}" "${CHAT[@]}" --model-args device=cpu,batch_size=16 --limit "$LIMIT" --no-cache \
  -o "$W/cpu-limit"

python3 "$here/compare_result_dirs.py" "$W/one" "$W/sharded" --json "$R/compare-one-sharded.json"
python3 "$here/compare_result_dirs.py" "$W/gpu-limit" "$W/cpu-limit" --json "$R/compare-gpu-cpu.json"
python3 "$here/compare_result_dirs.py" "$W/one" "$W/bf16" --json "$R/compare-f32-bf16.json"
