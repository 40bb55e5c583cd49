"""Compare two `genbench-cli run` output folders of the same tasks and settings, answer by answer.

Usage::

    python benchmarks/compare_result_dirs.py DIR_A DIR_B [--json out.json]

Files are paired by their settings folder and file name (the model folder is ignored, so runs with other model
arguments pair up). For each pair of per-sample logs: how many answers (``prediction``) agree, how many generations
(``raw_output`` strings) are identical, and the largest difference of log-likelihoods (``raw_output.loglikelihoods``);
for each pair of results files: the largest difference of metric values. Prints a summary; exits 1 when a file of
one side has no partner.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def _by_key(root: Path, pattern: str) -> dict[str, Path]:
    return {f"{path.parent.name}/{path.name}": path for path in sorted(root.glob(f"*/*/{pattern}"))}


def _loglikelihoods(raw: Any) -> list[float]:
    return list(raw.get("loglikelihoods") or []) if isinstance(raw, dict) else []


def compare_samples(a: Path, b: Path) -> dict[str, Any]:
    rows_a = [json.loads(line) for line in a.read_text().splitlines() if line.strip()]
    rows_b = [json.loads(line) for line in b.read_text().splitlines() if line.strip()]
    same_prediction = sum(x.get("prediction") == y.get("prediction") for x, y in zip(rows_a, rows_b, strict=False))
    texts = [
        (x["raw_output"], y["raw_output"])
        for x, y in zip(rows_a, rows_b, strict=False)
        if isinstance(x.get("raw_output"), str)
    ]
    gaps = [
        abs(p - q)
        for x, y in zip(rows_a, rows_b, strict=False)
        for p, q in zip(_loglikelihoods(x.get("raw_output")), _loglikelihoods(y.get("raw_output")), strict=False)
    ]
    return {
        "rows": [len(rows_a), len(rows_b)],
        "same_prediction": same_prediction,
        "generations": len(texts),
        "identical_generations": sum(x == y for x, y in texts),
        "loglikelihoods": len(gaps),
        "max_loglikelihood_gap": max(gaps, default=0.0),
    }


def compare_results(a: Path, b: Path) -> dict[str, Any]:
    evals_a = json.loads(a.read_text())["evaluations"]
    evals_b = json.loads(b.read_text())["evaluations"]
    gaps = [
        abs(float(ea["metrics"][name]["value"]) - float(eb["metrics"][name]["value"]))
        for ea, eb in zip(evals_a, evals_b, strict=False)
        for name in ea["metrics"]
        if name in eb["metrics"] and isinstance(ea["metrics"][name].get("value"), (int, float))
    ]
    return {"evaluations": [len(evals_a), len(evals_b)], "max_metric_gap": max(gaps, default=0.0)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    report: dict[str, Any] = {"a": str(args.a), "b": str(args.b), "samples": {}, "results": {}, "unpaired": []}
    for pattern, compare, key in (
        ("*.samples.jsonl", compare_samples, "samples"),
        ("*[!l].json", compare_results, "results"),
    ):
        side_a, side_b = _by_key(args.a, pattern), _by_key(args.b, pattern)
        report["unpaired"] += sorted(set(side_a) ^ set(side_b))
        for name in sorted(set(side_a) & set(side_b)):
            report[key][name] = compare(side_a[name], side_b[name])
    for name, row in report["samples"].items():
        print(
            f"{name}: {row['same_prediction']}/{row['rows'][0]} same answers, "
            f"{row['identical_generations']}/{row['generations']} identical generations, "
            f"log-likelihood gap {row['max_loglikelihood_gap']:.3g} over {row['loglikelihoods']}"
        )
    for name, row in report["results"].items():
        print(f"{name}: largest metric gap {row['max_metric_gap']:.3g}")
    if report["unpaired"]:
        print("unpaired:", ", ".join(report["unpaired"]))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    return 1 if report["unpaired"] else 0


if __name__ == "__main__":
    sys.exit(main())
