"""lm-evaluation-harness beside genbench: genbench's prompts as lm-eval tasks, and lm-eval run in its own venv.

The one implementation for the benchmark ``run_vs_lmeval.py`` (how fast) and the test
``tests/runs/test_lmeval_parity.py`` (whether the answers agree), which imports this file by path
(``tests/benchmark_modules.py``): ``benchmarks/`` travels without ``tests/`` to the GPU check.

lm-evaluation-harness lives in a virtual environment of its own (``make lmeval-venv``: ``.venvs/lmeval``,
lm-eval :data:`LMEVAL_VERSION` with the torch, transformers and tokenizers of genbench's venv), so each side runs its
own library's code. Its python runs ``python -m lm_eval`` (the benchmark's whole-process timing),
``_lmeval_reference.py`` (lm-eval's evaluator and raw ``HFLM`` requests: :func:`lmeval_answers`) or
``gpu_run_vs_lmeval.py side --side lmeval``, in :func:`lmeval_environment`. genbench's prompts of a task become an
lm-evaluation-harness task of its own format (JSON lines and a YAML file, :func:`write_lmeval_tasks`), so both sides
answer identical requests.

Only the standard library is imported at the top: genbench is imported inside the function that builds prompts.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

LMEVAL_VERSION = "0.4.13"
REFERENCE_SCRIPT = Path(__file__).resolve().with_name("_lmeval_reference.py")
MC_TASK, GEN_TASK = "category_membership", "arithmetic_length"
# the lm-evaluation-harness names of the two tasks written by write_lmeval_tasks
MC_NAME, GEN_NAME = "gb_mc", "gb_gen"
OFFLINE = {
    "HF_HUB_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
}


class LmevalFailed(RuntimeError):
    """A command of lm-evaluation-harness's venv failed; the message holds its exit status and its output's end."""


def write_lmeval_task(
    folder: Path, name: str, rows: list[dict[str, Any]], *, stop: str | None = None, max_new_tokens: int = 0
) -> None:
    """genbench's prompts as the lm-evaluation-harness task ``name`` (``name.jsonl`` and ``name.yaml`` in ``folder``).

    ``rows`` with ``options`` (and the gold ``answer`` index) make a ``multiple_choice`` task whose context is the
    prompt and whose continuations are the options as they are (``target_delimiter: ""``: genbench's prompts carry
    their own separator); rows without make a ``generate_until`` task, greedy, cut at ``stop``, at most
    ``max_new_tokens`` tokens.
    """
    folder.mkdir(parents=True, exist_ok=True)
    data = folder / f"{name}.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    # JSON strings are YAML strings: every value below is written with json.dumps
    head = (
        f"task: {name}\ndataset_path: json\ndataset_kwargs:\n  data_files:\n    test: {json.dumps(str(data))}\n"
        "test_split: test\ndoc_to_text: prompt\n"
    )
    if "options" in rows[0]:
        body = (
            'output_type: multiple_choice\ndoc_to_choice: options\ndoc_to_target: answer\ntarget_delimiter: ""\n'
            "metric_list:\n  - metric: acc\n  - metric: acc_norm\n"
        )
    else:
        body = (
            'output_type: generate_until\ndoc_to_target: target\ntarget_delimiter: ""\ngeneration_kwargs:\n'
            f"  until: {json.dumps([stop] if stop else [])}\n  max_gen_toks: {max_new_tokens}\n  do_sample: false\n"
            "metric_list:\n  - metric: exact_match\n"
        )
    (folder / f"{name}.yaml").write_text(head + body, encoding="utf-8")


def write_lmeval_tasks(
    folder: Path, shots: Sequence[int], seed: int, limit: int | None, max_new_tokens: int
) -> dict[str, list[str]]:
    """:data:`MC_TASK` and :data:`GEN_TASK` as the lm-evaluation-harness tasks :data:`MC_NAME` and :data:`GEN_NAME`.

    Their prompts are those that ``genbench-cli run`` asks (``prompt_settings`` over ``shots``, the first ``limit``
    test examples of each), the generation cut at the task's stop string after at most ``max_new_tokens`` tokens.
    Returns the prompts of each lm-evaluation-harness task, in document order.
    """
    from genbench._core.errors import TaskDefinitionError
    from genbench.runs._execute import prompt_settings
    from genbench.task._factory import load_task
    from genbench.task._task import Task

    mc_task, gen_task = load_task(MC_TASK), load_task(GEN_TASK)
    if not isinstance(mc_task, Task) or not isinstance(gen_task, Task):
        raise TaskDefinitionError(
            f"{MC_TASK} and {GEN_TASK} must be tasks without subtasks: their prompts are written"
        )
    mc_rows, gen_rows = [], []
    for _, dataset, _ in prompt_settings(mc_task, shots, seed, limit):
        for prompt, options, target in zip(
            dataset["input"], dataset["target_options"], dataset["target"], strict=True
        ):
            options = [str(o) for o in options]
            mc_rows.append({"prompt": prompt, "options": options, "answer": options.index(str(target).strip())})
    for _, dataset, _ in prompt_settings(gen_task, shots, seed, limit):
        gen_rows += [{"prompt": prompt, "target": str(target)} for prompt, target in
                     zip(dataset["input"], dataset["target"], strict=True)]  # fmt: skip
    write_lmeval_task(folder, MC_NAME, mc_rows)
    stop = gen_task.config.prompt_builder.stop_string or None
    write_lmeval_task(folder, GEN_NAME, gen_rows, stop=stop, max_new_tokens=max_new_tokens)
    return {MC_NAME: [r["prompt"] for r in mc_rows], GEN_NAME: [r["prompt"] for r in gen_rows]}


# lm-evaluation-harness's few-shot sampler for the chat tasks: each document carries its own shots (genbench draws
# them per query), which this sampler hands back in prompt order
OWN_SHOTS_SAMPLER = """from lm_eval.api.samplers import ContextSampler


class OwnShots(ContextSampler):
    def sample(self, n, eval_doc=None, df=None, **kwargs):
        return list(eval_doc["shots"])
"""


def write_lmeval_chat_tasks(
    folder: Path, shots: Sequence[int], seed: int, limit: int | None, max_new_tokens: int
) -> dict[str, list[Any]]:
    """:data:`MC_TASK` and :data:`GEN_TASK` as lm-evaluation-harness tasks whose documents keep a prompt's parts
    apart, as ``--apply_chat_template`` needs them: the query (``doc_to_text``), the task's instruction (lm-eval's
    ``description``, which goes to the system message) and the shots (lm-eval's few-shot examples, through a
    sampler that returns each document's own).

    Returns each task's prompt turns (genbench's :class:`~genbench.prompting._turns.PromptTurns`), in document order.
    """
    from genbench.runs._chat import task_prompt_turns
    from genbench.runs._execute import prompt_settings
    from genbench.task._factory import load_task

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "gb_own_shots.py").write_text(OWN_SHOTS_SAMPLER, encoding="utf-8")
    turns: dict[str, list[Any]] = {MC_NAME: [], GEN_NAME: []}
    for task_id, name in ((MC_TASK, MC_NAME), (GEN_TASK, GEN_NAME)):
        task: Any = load_task(task_id)
        rows = []
        for _, dataset, _ in prompt_settings(task, shots, seed, limit):
            for row, parts in zip(dataset, task_prompt_turns(task, dataset, seed), strict=True):
                turns[name].append(parts)
                doc: dict[str, Any] = {"prompt": parts.query, "instruction": parts.instruction}
                if name == MC_NAME:
                    options = [str(o) for o in row["target_options"]]
                    doc.update(options=options, answer=options.index(str(row["target"]).strip()))
                    doc["shots"] = [{"prompt": i, "options": [t], "answer": 0} for i, t in parts.shots]
                else:
                    doc["target"] = str(row["target"])
                    doc["shots"] = [{"prompt": i, "target": t} for i, t in parts.shots]
                rows.append(doc)
        stop = task.config.prompt_builder.stop_string or None if name == GEN_NAME else None
        write_lmeval_task(folder, name, rows, stop=stop, max_new_tokens=max_new_tokens)
        separator = json.dumps(task.config.prompt_builder.few_shot_example_separator)
        with (folder / f"{name}.yaml").open("a", encoding="utf-8") as handle:
            handle.write(
                f"description: instruction\nnum_fewshot: {max(shots)}\nfewshot_split: test\n"
                f"fewshot_delimiter: {separator}\nfewshot_config:\n  sampler: !function gb_own_shots.OwnShots\n"
            )
    return turns


def lmeval_environment(**extra: str) -> dict[str, str]:
    """The environment of lm-evaluation-harness's venv: this one without ``PYTHONPATH`` (its own packages only, none
    of this checkout), offline, tokenizers single-threaded, and ``extra``."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env.update({**OFFLINE, "TOKENIZERS_PARALLELISM": "false", **extra})
    return env


def run_lmeval(
    python: Path | str, arguments: Sequence[str], env: dict[str, str], *, timeout: float | None = None
) -> subprocess.CompletedProcess[str]:
    """``python arguments...`` (lm-evaluation-harness's venv), its output captured.

    Raises:
        LmevalFailed: it exited with another status than 0 (the message holds the end of its output).
    """
    command = [str(python), *arguments]
    completed = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)
    if completed.returncode != 0:
        raise LmevalFailed(
            f"{' '.join(command[:3])} ... failed (exit {completed.returncode}):\n"
            f"{completed.stdout[-3000:]}\n{completed.stderr[-5000:]}"
        )
    return completed


def lmeval_answers(
    python: Path | str,
    scratch: Path,
    models: dict[str, Path],
    *,
    tasks: Sequence[str],
    pairs: Sequence[tuple[str, str]],
    generations: list[dict[str, Any]],
    batch_size: int,
    env: dict[str, str] | None = None,
    chat: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """lm-evaluation-harness's answers (``_lmeval_reference.py``, run by ``python`` in ``env``): the ``tasks`` written
    in ``scratch / "tasks"``, the raw log-likelihood ``pairs`` and the raw ``generations``
    (``{"prompts", "stop", "max_new_tokens"}`` each), for each model; with the versions of lm_eval, torch,
    transformers and tokenizers there. ``env``: :func:`lmeval_environment` unless given. ``chat``: runs of the
    tasks with ``--apply_chat_template``, each ``{"label", "model", "task_dir", "tasks", "system_instruction",
    "fewshot_as_multiturn"}``; their answers are the result's ``chat[label]``.

    Raises:
        LmevalFailed: the script failed.
    """
    work, answers = scratch / "work.json", scratch / "answers.json"
    request = {
        "models": {label: str(path) for label, path in models.items()},
        "batch_size": batch_size,
        "task_dir": str(scratch / "tasks"),
        "tasks": list(tasks),
        "pairs": [list(pair) for pair in pairs],
        "generations": generations,
        "chat": chat or [],
    }
    work.write_text(json.dumps(request), encoding="utf-8")
    env = {"HF_DATASETS_CACHE": str(scratch / "hf_datasets"), **(env or lmeval_environment())}
    run_lmeval(python, [str(REFERENCE_SCRIPT), str(work), str(answers)], env, timeout=600)
    return json.loads(answers.read_text(encoding="utf-8"))  # type: ignore[no-any-return]
