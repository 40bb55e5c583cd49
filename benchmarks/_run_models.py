"""Models and requests of the ``run`` benchmarks (``run_vs_lmeval.py``, ``gpu_run_vs_lmeval.py``): no Hub needed.

Models are GPT-2s initialised at random with a fixed seed, with a word-level tokenizer, saved with
``save_pretrained`` so that genbench (``hf:PATH``) and lm-evaluation-harness (``--model hf --model_args
pretrained=PATH``) load the very same files. Their one definition is :mod:`genbench.runs._tiny_model` (shapes
``tiny``, ``tiny-bos``, ``tiny-chat``, ``gpt2-small``; ``genbench-cli models make-tiny``), re-exported here for the
benchmarks and the tests' ``tiny_gpt2`` fixture (``tests/runs/conftest.py``), and imported only when a model is built.

The requests are genbench's own prompts of two shipped tasks: ``category_membership`` (multiple choice: a
log-likelihood per option) and ``arithmetic_length`` (free form: greedy generation up to a stop string).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

SRC = Path(__file__).resolve().parents[1] / "src"


def build_model(name: str, path: Path, seed: int = 0) -> Path:
    """Write the model ``name`` (``tiny``, ``tiny-bos``, ``gpt2-small``) to ``path``: the package's builder
    (:func:`genbench.runs._tiny_model.build_model`), imported only when called, from the ``src/`` beside this folder
    when genbench is not importable (the device check runs its lm-evaluation-harness side without genbench on the
    path)."""
    try:
        from genbench.runs._tiny_model import build_model as build
    except ImportError:
        sys.path.append(str(SRC))
        from genbench.runs._tiny_model import build_model as build
    return build(name, path, seed=seed)


def task_requests(
    shots: list[int],
    limit: int | None = None,
    gen_shots: list[int] | None = None,
    gen_limit: int | None = None,
    seed: int = 42,
) -> dict[str, Any]:
    """genbench's requests: ``pairs`` (context, option) of the multiple-choice task over ``shots`` (the first
    ``limit`` questions of each) and ``prompts`` (with their ``stop``) of the generation task over ``gen_shots``
    (default ``shots``; the first ``gen_limit`` of each, default ``limit``)."""
    from genbench.runs._execute import prompt_settings
    from genbench.task._factory import load_task

    mc, gen = load_task("category_membership"), load_task("arithmetic_length")
    pairs = [
        (prompt, str(option))
        for _, dataset, _ in prompt_settings(mc, shots, seed, limit)
        for prompt, options in zip(dataset["input"], dataset["target_options"], strict=True)
        for option in options
    ]
    prompts = [
        prompt
        for _, dataset, _ in prompt_settings(gen, gen_shots or shots, seed, gen_limit or limit)
        for prompt in dataset["input"]
    ]
    return {"pairs": pairs, "prompts": prompts, "stop": gen.config.prompt_builder.stop_string or None}
