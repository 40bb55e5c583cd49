"""genbench's ``hf:`` runner against lm-evaluation-harness's ``HFLM`` on one machine (a GPU when there is one).

Usage (each side in its own process, so that the two libraries' imports do not meet)::

    python benchmarks/gpu_run_vs_lmeval.py build --model gpt2-small --path /tmp/gpt2-small
    python benchmarks/gpu_run_vs_lmeval.py requests --json work.json      # genbench's prompts (needs genbench)
    python benchmarks/gpu_run_vs_lmeval.py side --side genbench --work work.json --path /tmp/gpt2-small --json g.json
    python benchmarks/gpu_run_vs_lmeval.py side --side lmeval --work work.json --path /tmp/gpt2-small --json l.json
    python benchmarks/gpu_run_vs_lmeval.py report g.json l.json [more.json ...]

The work is genbench's own requests (``_run_models.task_requests``): every log-likelihood pair of
``category_membership`` and every generation prompt of ``arithmetic_length`` over ``--shots`` (greedy,
``--max-new-tokens``), in each ``--configs`` (data type and batch size). genbench answers them through the
``Requester`` that ``genbench-cli run`` uses (request cache off), lm-evaluation-harness through ``HFLM.loglikelihood``
and ``HFLM.generate_until`` (its own batching and request reordering). Each figure is timed ``--runs`` times after
one warm-up; the report gives min and median, requests per second and the ratio of medians, no extrapolation.

``side --side genbench --cpu-check`` also answers a part of the work on the CPU in float32 (the pairs of the first
two shot settings and ``--cpu-prompts`` generation prompts) and reports the largest difference of log-likelihoods
between CPU and ``--device``, the argmax (chosen option) agreement and the identical greedy generations.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _run_models import build_model, task_requests  # noqa: E402  (genbench itself is imported only when used)


def _timed(function: Any, runs: int) -> tuple[dict[str, Any], Any]:
    import torch

    value = function()  # warm-up (kernels, allocator, tokenizer caches)
    seconds = []
    for _ in range(runs):
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        start = time.perf_counter()
        value = function()
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        seconds.append(time.perf_counter() - start)
    return {"min": min(seconds), "median": statistics.median(seconds), "runs": seconds}, value


def _genbench_answerer(path: str, device: str, dtype: str, batch_size: int) -> Any:
    from genbench.runs._execute import Requester
    from genbench.runs._hf import HFCausalLMRunner
    from genbench.runs.specs import parse_model_spec

    spec = parse_model_spec(f"hf:{path}", f"device={device},dtype={dtype},batch_size={batch_size}")
    return Requester(HFCausalLMRunner(spec), None, progress=False)


def _lmeval_answerer(path: str, device: str, dtype: str, batch_size: int) -> Any:
    from _lmeval_reference import generations, loglikelihoods  # the parity test's requests to HFLM, the same code
    from lm_eval.models.huggingface import HFLM

    lm = HFLM(pretrained=path, device=device, dtype=dtype, batch_size=batch_size)

    class Answerer:
        def loglikelihood(self, pairs: list[tuple[str, str]]) -> list[float]:
            return loglikelihoods(lm, pairs)

        def generate(self, prompts: list[str], *, max_new_tokens: int, stop: str | None) -> list[str]:
            return generations(lm, prompts, stop=stop, max_new_tokens=max_new_tokens)

    return Answerer()


def side(args: argparse.Namespace) -> dict[str, Any]:
    import torch

    torch.manual_seed(0)
    work = json.loads(Path(args.work).read_text())
    pairs, prompts, stop = [tuple(p) for p in work["pairs"]], work["prompts"], work["stop"]
    make = _genbench_answerer if args.side == "genbench" else _lmeval_answerer
    result: dict[str, Any] = {
        "side": args.side,
        "label": args.label or args.side,
        "device": args.device,
        "device_name": torch.cuda.get_device_name(0) if args.device.startswith("cuda") else "cpu",
        "torch": torch.__version__,
        "pairs": len(pairs),
        "prompts": len(prompts),
        "max_new_tokens": args.max_new_tokens,
        "figures": {},
    }
    answers: dict[str, Any] = {}
    for config in args.configs:
        dtype, batch_size = config.split(":")[0], int(config.split(":")[1])
        if True:
            answerer = make(args.path, args.device, dtype, batch_size)
            key = f"{dtype} bs{batch_size}"
            ll_time, lls = _timed(lambda a=answerer: a.loglikelihood(pairs), args.runs)
            gen_time, outs = _timed(
                lambda a=answerer: a.generate(prompts, max_new_tokens=args.max_new_tokens, stop=stop), args.runs
            )
            result["figures"][key] = {"loglikelihood": ll_time, "generate": gen_time}
            answers[key] = {"loglikelihoods": lls, "generations": outs}
            print(f"{args.label or args.side} {key}: ll {ll_time['median']:.3f} s, gen {gen_time['median']:.3f} s")
            del answerer
            if torch.cuda.is_available():
                torch.cuda.empty_cache()
    result["answers"] = answers
    if args.cpu_check:
        device_answers = answers[f"float32 bs{args.configs[0].split(':')[1]}"]
        result["cpu_check"] = _cpu_check(args, work["cpu_pairs"], prompts, stop, device_answers)
    return result


def _cpu_check(args: argparse.Namespace, n_pairs: int, prompts: list, stop: str | None, device_answers: dict) -> dict:
    """Answer a part of the work on the CPU (float32) and compare with the device's float32 answers."""
    import numpy as np

    pairs = [tuple(p) for p in json.loads(Path(args.work).read_text())["pairs"]]
    answerer = _genbench_answerer(args.path, "cpu", "float32", int(args.configs[0].split(":")[1]))
    start = time.perf_counter()
    cpu_lls = np.array(answerer.loglikelihood(pairs[:n_pairs]))
    cpu_gen = answerer.generate(prompts[: args.cpu_prompts], max_new_tokens=args.max_new_tokens, stop=stop)
    seconds = time.perf_counter() - start
    dev_lls = np.array(device_answers["loglikelihoods"][:n_pairs])
    choices = 4  # category_membership: four options per question
    same_argmax = (cpu_lls.reshape(-1, choices).argmax(1) == dev_lls.reshape(-1, choices).argmax(1)).mean()
    same_gen = [c == d for c, d in zip(cpu_gen, device_answers["generations"][: args.cpu_prompts], strict=True)]
    return {
        "pairs": n_pairs,
        "max_abs_diff": float(np.abs(cpu_lls - dev_lls).max()),
        "max_rel_diff": float((np.abs(cpu_lls - dev_lls) / np.maximum(1e-12, np.abs(cpu_lls))).max()),
        "same_argmax_fraction": float(same_argmax),
        "prompts": len(same_gen),
        "identical_generations": int(sum(same_gen)),
        "cpu_seconds": seconds,
        "cpu_threads": __import__("torch").get_num_threads(),
    }


def report(paths: list[str]) -> dict[str, Any]:
    """Throughput of each side, ratios of medians against the first file, agreement of the answers."""
    import numpy as np

    sides = [json.loads(Path(p).read_text()) for p in paths]
    base = sides[0]
    lines = [f"device: {base['device_name']} ({base['device']}), torch {base['torch']}"]
    lines.append(
        f"work: {base['pairs']} log-likelihood pairs, {base['prompts']} prompts x {base['max_new_tokens']} tokens"
    )
    for key in base["figures"]:
        for phase, count in (("loglikelihood", base["pairs"]), ("generate", base["prompts"])):
            for s in sides:
                if key not in s["figures"]:
                    continue
                figure = s["figures"][key][phase]
                ratio = figure["median"] / base["figures"][key][phase]["median"]
                lines.append(
                    f"{key:<12} {phase:<13} {s['label']:<14} median {figure['median']:8.3f} s"
                    f" (min {figure['min']:.3f}) {count / figure['median']:9.1f} req/s"
                    f"  time / {base['label']}'s = {ratio:.2f}"
                )
        for s in sides[1:]:
            if key not in s["answers"]:
                continue
            a, b = base["answers"][key], s["answers"][key]
            diff = float(np.abs(np.array(a["loglikelihoods"]) - np.array(b["loglikelihoods"])).max())
            same = sum(x == y for x, y in zip(a["generations"], b["generations"], strict=True))
            lines.append(
                f"{key:<16} agreement {base['label']} vs {s['label']}: max |ll diff| {diff:.2e}, "
                f"identical generations {same}/{len(a['generations'])}"
            )
    for s in sides:
        if "cpu_check" in s:
            c = s["cpu_check"]
            lines.append(
                f"{s['label']} CPU vs {s['device']} (float32): {c['pairs']} pairs,"
                f" max |ll diff| {c['max_abs_diff']:.2e}"
                f" (relative {c['max_rel_diff']:.2e}), same chosen option {c['same_argmax_fraction']:.3f}, identical"
                f" generations {c['identical_generations']}/{c['prompts']} ({c['cpu_seconds']:.1f} s on "
                f"{c['cpu_threads']} CPU threads)"
            )
    print("\n".join(lines))
    return {"lines": lines}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    build = sub.add_parser("build")
    build.add_argument("--model", default="gpt2-small")
    build.add_argument("--path", required=True)
    work = sub.add_parser("requests")
    work.add_argument("--shots", nargs="+", type=int, default=[0, 1, 2, 3, 5])
    work.add_argument("--limit", type=int, default=None, help="multiple-choice questions per shot setting")
    work.add_argument("--gen-shots", nargs="+", type=int, default=[0, 5])
    work.add_argument("--gen-limit", type=int, default=80)
    work.add_argument("--json", required=True)
    one = sub.add_parser("side")
    one.add_argument("--work", required=True)
    one.add_argument("--side", choices=["genbench", "lmeval"], required=True)
    one.add_argument("--label", default="")
    one.add_argument("--path", required=True)
    one.add_argument("--device", default="cuda")
    one.add_argument(
        "--configs", nargs="+", default=["float32:8", "float32:64", "bfloat16:64"], help="DTYPE:BATCH_SIZE ..."
    )
    one.add_argument("--max-new-tokens", type=int, default=32)
    one.add_argument("--runs", type=int, default=2)
    one.add_argument("--cpu-check", action="store_true")
    one.add_argument("--cpu-prompts", type=int, default=32)
    one.add_argument("--json", required=True)
    rep = sub.add_parser("report")
    rep.add_argument("files", nargs="+")
    rep.add_argument("--json")
    args = parser.parse_args()
    if args.command == "build":
        print(build_model(args.model, Path(args.path)))
    elif args.command == "requests":
        requests = task_requests(args.shots, args.limit, args.gen_shots, args.gen_limit)
        # the CPU check answers the pairs of the first two shot settings, which come first in `pairs`
        requests["cpu_pairs"] = len(task_requests(args.shots[:2], args.limit)["pairs"])
        requests["shots"] = args.shots
        Path(args.json).write_text(json.dumps(requests))
    elif args.command == "side":
        Path(args.json).write_text(json.dumps(side(args)))
    else:
        out = report(args.files)
        if args.json:
            Path(args.json).write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    main()
