"""``genbench-cli run`` against lm-evaluation-harness (``lm_eval``) on the same tiny GPT-2s and the same prompts.

Usage::

    python benchmarks/run_vs_lmeval.py --lmeval-python /work/venvs/lmeval/bin/python [--runs 5] [--models tiny]

lm-evaluation-harness runs from its own virtual environment (``--lmeval-python``; made with
``python3 -m venv V && V/bin/pip install -c constraints.txt torch==2.13.0 "lm-eval[hf]==0.4.13"``), as the
original framework does for the other benchmarks. The models are those of ``_run_models.py``: ``tiny`` (no BOS
token) and ``tiny-bos`` (a tokenizer that starts every encoding with ``<s>``), built here with a fixed seed.

The work: ``category_membership`` (multiple choice: a log-likelihood per option) and ``arithmetic_length``
(greedy generation up to ``\\n``, at most ``--max-new-tokens`` tokens), at ``--shots``, the first ``--limit`` test
examples, float32 on the CPU, batch size 8. lm-evaluation-harness gets genbench's own prompts, written to JSON lines
and read by two task files of its own format (``output_type: multiple_choice`` with ``target_delimiter: ""``, and
``generate_until``), so both sides answer identical requests: ``_lmeval.py``, which the parity test shares.

Measured, the two sides alternating, ``--runs`` times each, min and median:

* whole process: ``genbench-cli run ... --no-cache --no-progress`` and ``lm_eval --model hf ... --include_path``:
  interpreter start, imports, model loading, the work, scoring (each side's default intervals) and writing results;
* in process: the requests alone, through genbench's ``Requester`` (as ``run`` asks them, request cache off) and
  through ``HFLM.loglikelihood`` / ``HFLM.generate_until`` (``gpu_run_vs_lmeval.py side --device cpu``).

Before timing, the in-process answers are compared: the largest log-likelihood difference and the number of
identical generations are reported (and must be below 1e-4 and all identical). Ratios are medians over medians of
this run, never extrapolated. Results: ``benchmarks/results/run_vs_lmeval.json`` (printed only with ``--no-write``).
The agreement alone, on fewer requests and a third (byte-level BPE) tokenizer, is a test:
``tests/runs/test_lmeval_parity.py`` (``make test``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import REPO_ROOT, ratio, run_process, summary, versions, write_results  # noqa: E402
from _lmeval import GEN_NAME, MC_NAME, OFFLINE, lmeval_environment, run_lmeval, write_lmeval_tasks  # noqa: E402
from _run_models import build_model  # noqa: E402

SIDE = str(Path(__file__).resolve().parent / "gpu_run_vs_lmeval.py")
SEED = 42  # genbench-cli run's default


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lmeval-python", required=True, help="The python of lm-evaluation-harness's venv.")
    parser.add_argument("--models", nargs="+", default=["tiny", "tiny-bos"])
    parser.add_argument("--shots", nargs="+", type=int, default=[0, 5])
    parser.add_argument("--limit", type=int, default=40)
    parser.add_argument("--max-new-tokens", type=int, default=32)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-write", action="store_true", help="print only; leave benchmarks/results alone")
    args = parser.parse_args()

    env = {**os.environ, **OFFLINE, "TOKENIZERS_PARALLELISM": "false"}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT / "src"), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    lm_env = lmeval_environment()
    payload: dict[str, Any] = {
        "versions": {**versions("torch", "transformers", "genbench")},
        "settings": {k: v for k, v in vars(args).items() if k not in ("lmeval_python", "no_write")},
        "models": {},
    }
    version_code = "import importlib.metadata as m; print(m.version('lm_eval'))"
    payload["versions"]["lm_eval"] = run_lmeval(args.lmeval_python, ["-c", version_code], lm_env).stdout.strip()
    with tempfile.TemporaryDirectory() as scratch_name:
        scratch = Path(scratch_name)
        prompts = write_lmeval_tasks(scratch / "tasks", args.shots, SEED, args.limit, args.max_new_tokens)
        payload["workload"] = {
            "multiple_choice_questions": len(prompts[MC_NAME]),
            "generation_prompts": len(prompts[GEN_NAME]),
        }
        work = scratch / "work.json"
        subprocess.run(
            [sys.executable, SIDE, "requests", "--shots", *map(str, args.shots), "--limit", str(args.limit),
             "--gen-shots", *map(str, args.shots), "--gen-limit", str(args.limit), "--json", str(work)],
            env=env, check=True,
        )  # fmt: skip
        for model in args.models:
            path = build_model(model, scratch / model)
            genbench_cmd = [
                sys.executable, "-c", "from genbench.cli import cli; cli()", "run", "--model", f"hf:{path}",
                "--model-args", "dtype=float32,batch_size=8,device=cpu",
                "--task", "category_membership,arithmetic_length",
                "--shots", ",".join(map(str, args.shots)), "--limit", str(args.limit), "--max-new-tokens",
                str(args.max_new_tokens), "--no-cache", "--no-progress", "-o", str(scratch / "out-genbench"),
            ]  # fmt: skip
            lmeval_cmd = [
                args.lmeval_python, "-m", "lm_eval", "--model", "hf", "--model_args",
                f"pretrained={path},dtype=float32", "--device", "cpu", "--batch_size", "8",
                "--tasks", f"{MC_NAME},{GEN_NAME}", "--include_path", str(scratch / "tasks"),
                "--output_path", str(scratch / "out-lmeval"),
            ]  # fmt: skip
            side_args = ["--work", str(work), "--path", str(path), "--device", "cpu", "--configs", "float32:8",
                         "--runs", str(args.runs), "--max-new-tokens", str(args.max_new_tokens)]  # fmt: skip
            ours_json, theirs_json = scratch / f"{model}-g.json", scratch / f"{model}-l.json"
            for python, side, out, side_env in (
                (sys.executable, "genbench", ours_json, env),
                (args.lmeval_python, "lmeval", theirs_json, lm_env),
            ):
                command = [python, SIDE, "side", "--side", side, *side_args, "--json", str(out)]
                run_process(command, side_env)
            ours, theirs = json.loads(ours_json.read_text()), json.loads(theirs_json.read_text())
            a, b = ours["answers"]["float32 bs8"], theirs["answers"]["float32 bs8"]
            ll_diff = max(abs(x - y) for x, y in zip(a["loglikelihoods"], b["loglikelihoods"], strict=True))
            same = sum(x == y for x, y in zip(a["generations"], b["generations"], strict=True))
            if ll_diff > 1e-4 or same != len(a["generations"]):
                raise SystemExit(f"{model}: answers differ (max |ll diff| {ll_diff}, {same} identical generations)")
            whole: dict[str, list[float]] = {"genbench": [], "lm_eval": []}
            for _ in range(args.runs):
                whole["genbench"].append(run_process(genbench_cmd, env))
                whole["lm_eval"].append(run_process(lmeval_cmd, lm_env))
            figures = {
                "whole_process": {side: summary(seconds) for side, seconds in whole.items()},
                "in_process_loglikelihood": {
                    "genbench": ours["figures"]["float32 bs8"]["loglikelihood"],
                    "lm_eval": theirs["figures"]["float32 bs8"]["loglikelihood"],
                },
                "in_process_generate": {
                    "genbench": ours["figures"]["float32 bs8"]["generate"],
                    "lm_eval": theirs["figures"]["float32 bs8"]["generate"],
                },
            }
            payload["models"][model] = {
                "figures": figures,
                "ratios_lmeval_over_genbench": {k: ratio(v["lm_eval"], v["genbench"]) for k, v in figures.items()},
                "agreement": {"max_abs_loglikelihood_diff": ll_diff, "identical_generations": same,
                              "generations": len(a["generations"]), "pairs": len(a["loglikelihoods"])},
            }  # fmt: skip
            for key, value in figures.items():
                print(
                    f"{model:<9} {key:<25} genbench median {value['genbench']['median']:7.2f} s"
                    f" (min {value['genbench']['min']:.2f})   lm-eval median {value['lm_eval']['median']:7.2f} s"
                    f" (min {value['lm_eval']['min']:.2f})"
                    f"   lm-eval / genbench {ratio(value['lm_eval'], value['genbench']):.2f}"
                )
    if not args.no_write:
        print(write_results("run_vs_lmeval", payload))


if __name__ == "__main__":
    main()
