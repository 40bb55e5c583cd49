"""genbench's side of the lm-evaluation-harness parity test: the reference venv, the shared requests, the call.

lm-evaluation-harness lives in its own virtual environment (``make lmeval-venv``: ``.venvs/lmeval``, lm-eval
:data:`LMEVAL_VERSION` with the torch, transformers and tokenizers of genbench's venv) and answers through
``tests/runs/lmeval_reference.py``, run by that venv's python. genbench's prompts of a task become an
lm-evaluation-harness task of its own format (JSON lines and a YAML file), so both sides answer identical requests.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

LMEVAL_VERSION = "0.4.13"
REPO_ROOT = Path(__file__).resolve().parents[2]
REFERENCE_SCRIPT = Path(__file__).with_name("lmeval_reference.py")
DEFAULT_VENV = REPO_ROOT / ".venvs" / "lmeval"
PYTHON_VARIABLE = "GENBENCH_LMEVAL_PYTHON"
SETUP = "make lmeval-venv (or set GENBENCH_LMEVAL_PYTHON to the python of a venv with lm-eval[hf]==0.4.13)"


def reference_python() -> Path:
    """The python of the reference venv; fails the test where it is required, skips a bare local run without it.

    Required: ``GENBENCH_LMEVAL_PYTHON`` set (``make test`` sets it) or ``CI`` set. Otherwise the default
    ``.venvs/lmeval`` is used when it exists, and the test is skipped, saying how to make it, when it does not.
    """
    named = os.environ.get(PYTHON_VARIABLE)
    python = Path(named) if named else DEFAULT_VENV / "bin" / "python"
    if python.is_file() and os.access(python, os.X_OK):
        return python
    if named:
        pytest.fail(f"{PYTHON_VARIABLE}={named} is not an executable python: run {SETUP}", pytrace=False)
    if os.environ.get("CI"):
        pytest.fail(
            f"CI is set and the lm-evaluation-harness reference venv is missing ({python}): run {SETUP}",
            pytrace=False,
        )
    pytest.skip(f"no lm-evaluation-harness reference venv at {python}: run {SETUP}")


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


def lmeval_answers(
    python: Path,
    scratch: Path,
    models: dict[str, Path],
    *,
    tasks: list[str],
    pairs: list[tuple[str, str]],
    generations: list[dict[str, Any]],
    batch_size: int,
) -> dict[str, Any]:
    """lm-evaluation-harness's answers (see ``lmeval_reference.py``): the tasks written in ``scratch / "tasks"``, the
    raw log-likelihood ``pairs`` and the raw ``generations`` (``{"prompts", "stop", "max_new_tokens"}`` each)."""
    work, answers = scratch / "work.json", scratch / "answers.json"
    request = {
        "models": {label: str(path) for label, path in models.items()},
        "batch_size": batch_size,
        "task_dir": str(scratch / "tasks"),
        "tasks": tasks,
        "pairs": [list(pair) for pair in pairs],
        "generations": generations,
    }
    work.write_text(json.dumps(request), encoding="utf-8")
    # the reference venv's own packages only: no PYTHONPATH into this checkout
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    # one thread: the models are tiny, and under `make test` two workers share two cores: two threads a process
    # spin against each other (the whole parity module took 56 s instead of 22 s on a busy 2-core machine)
    env.update(
        {"TOKENIZERS_PARALLELISM": "false", "HF_DATASETS_CACHE": str(scratch / "hf_datasets"), "OMP_NUM_THREADS": "1"}
    )
    completed = subprocess.run(
        [str(python), str(REFERENCE_SCRIPT), str(work), str(answers)],
        env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    if completed.returncode != 0:
        pytest.fail(
            f"{python} {REFERENCE_SCRIPT.name} failed (exit {completed.returncode}):\n"
            f"{completed.stdout[-3000:]}\n{completed.stderr[-5000:]}",
            pytrace=False,
        )
    return json.loads(answers.read_text(encoding="utf-8"))  # type: ignore[no-any-return]
