"""lm-evaluation-harness's answers to genbench's requests: a script for the reference venv's python.

Usage (the python of a virtual environment with ``lm-eval[hf]``, see ``make lmeval-venv``)::

    .venvs/lmeval/bin/python benchmarks/_lmeval_reference.py WORK.json ANSWERS.json

``WORK.json`` (written by ``_lmeval.lmeval_answers``) names the models (``{label: path}``), the batch size,
a folder of lm-evaluation-harness task files (``tasks``: their names, in ``task_dir``) and raw log-likelihood
``pairs`` and raw ``generations`` (``{"prompts", "stop", "max_new_tokens"}`` each). For each model this script runs the
tasks with lm-evaluation-harness's own evaluator (``simple_evaluate`` with ``--model hf``'s ``HFLM``, float32 on the
CPU, ``log_samples``), answers the pairs with ``HFLM.loglikelihood`` and the generations with
``HFLM.generate_until`` (greedy), then writes ``ANSWERS.json``::

    {"lm_eval": "0.4.13", "torch": ..., "transformers": ...,
     "models": {label: {"tasks": {task: [{"doc_id", "loglikelihoods", "acc", "acc_norm"} or
                                         {"doc_id", "generation"}, ...]},
                        "pairs": [log-likelihood, ...], "generations": [[text, ...], ...]}}}

It imports nothing of genbench (which is not installed there), so each side runs its own library's code.
``gpu_run_vs_lmeval.py side --side lmeval`` asks its raw requests through :func:`loglikelihoods` and
:func:`generations`, imported from this file.
"""

from __future__ import annotations

import importlib.metadata
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def task_answers(lm: Any, task_dir: str, tasks: list[str], **chat: Any) -> dict[str, list[dict[str, Any]]]:
    """Each document's answers from lm-evaluation-harness's evaluator, by task, in document order; ``chat``:
    ``system_instruction`` and ``fewshot_as_multiturn``, with ``apply_chat_template=True``."""
    from lm_eval.evaluator import simple_evaluate
    from lm_eval.tasks import TaskManager

    manager = TaskManager(include_path=task_dir, include_defaults=False)
    if chat:
        chat = {"apply_chat_template": True, **chat}
    results = simple_evaluate(
        model=lm, tasks=tasks, task_manager=manager, log_samples=True, bootstrap_iters=0, random_seed=0, **chat
    )
    if results is None:
        raise SystemExit("lm_eval.simple_evaluate returned nothing")
    answers: dict[str, list[dict[str, Any]]] = {}
    for task in tasks:
        rows = []
        for sample in sorted(results["samples"][task], key=lambda s: s["doc_id"]):
            if "acc" in sample:  # multiple choice: one (log-likelihood, is_greedy) per option
                rows.append(
                    {
                        "doc_id": sample["doc_id"],
                        "loglikelihoods": [float(ll) for ll, _ in sample["filtered_resps"]],
                        "acc": float(sample["acc"]),
                        "acc_norm": float(sample["acc_norm"]),
                    }
                )
            else:  # generate_until: the generation after the `until` cut
                rows.append({"doc_id": sample["doc_id"], "generation": sample["filtered_resps"][0]})
            rows[-1]["context"] = sample["arguments"][0][0]  # the prompt as asked (rendered by the chat template)
        answers[task] = rows
    return answers


def loglikelihoods(lm: Any, pairs: Sequence[Sequence[str]]) -> list[float]:
    """``HFLM.loglikelihood`` of each ``(context, continuation)`` pair."""
    from lm_eval.api.instance import Instance

    requests = [Instance("loglikelihood", {}, (context, continuation), i) for i, (context, continuation) in
                enumerate(pairs)]  # fmt: skip
    return [float(ll) for ll, _ in lm.loglikelihood(requests, disable_tqdm=True)]


def generations(lm: Any, prompts: list[str], *, stop: str | None, max_new_tokens: int) -> list[str]:
    """``HFLM.generate_until`` (greedy) of each prompt, cut at ``stop`` (none: at ``max_new_tokens`` tokens only)."""
    from lm_eval.api.instance import Instance

    options = {"until": [stop] if stop else [], "max_gen_toks": max_new_tokens, "do_sample": False}
    requests = [Instance("generate_until", {}, (prompt, dict(options)), i) for i, prompt in enumerate(prompts)]
    return list(lm.generate_until(requests, disable_tqdm=True))


def main(work_path: str, answers_path: str) -> None:
    from lm_eval.models.huggingface import HFLM

    work = json.loads(Path(work_path).read_text(encoding="utf-8"))
    payload: dict[str, Any] = {
        name: importlib.metadata.version(name) for name in ("lm_eval", "torch", "transformers", "tokenizers")
    }
    payload["models"] = {}
    for label, path in work["models"].items():
        lm = HFLM(pretrained=path, device="cpu", dtype="float32", batch_size=work["batch_size"])
        payload["models"][label] = {
            "tasks": task_answers(lm, work["task_dir"], work["tasks"]),
            "pairs": loglikelihoods(lm, work["pairs"]),
            "generations": [
                generations(lm, group["prompts"], stop=group["stop"], max_new_tokens=group["max_new_tokens"])
                for group in work["generations"]
            ],
        }
    payload["chat"] = {}
    for run in work.get("chat", []):
        lm = HFLM(pretrained=run["model"], device="cpu", dtype="float32", batch_size=work["batch_size"])
        payload["chat"][run["label"]] = task_answers(
            lm, run["task_dir"], run["tasks"], system_instruction=run["system_instruction"],
            fewshot_as_multiturn=run["fewshot_as_multiturn"],
        )  # fmt: skip
    Path(answers_path).write_text(json.dumps(payload), encoding="utf-8")


if __name__ == "__main__":
    main(*sys.argv[1:3])
