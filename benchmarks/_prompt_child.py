"""One prompt-preparation run in its own process, for ``prompt_preparation.py``; works with either framework.

Usage: ``python _prompt_child.py TASK_ID fresh|warm OUTPUT_JSON|-``. ``genbench`` is whichever framework is importable
(genbench, or the original GenBench framework on ``PYTHONPATH``), so both run the very same calls.

* ``fresh``: import + ``load_task`` + ``get_prepared_datasets`` (the parent times the whole process).
* ``warm``: ``datasets`` and ``genbench`` imported first, then the first ``load_task`` + ``get_prepared_datasets``
  call is timed here.

With ``-`` the timing is printed as JSON; otherwise the output file holds the timing, the 0-shot inputs and
targets (to check that both frameworks give the same prompts).
"""

from __future__ import annotations

import json
import logging
import sys
import time


def main() -> None:
    task_id, mode, output = sys.argv[1:4]
    if mode == "warm":
        import datasets

        import genbench  # noqa: F401
        import genbench.task  # noqa: F401

        datasets.disable_progress_bars()
        logging.disable(logging.WARNING)
    start = time.perf_counter()
    from genbench import load_task
    from genbench.api import PreparationStrategy  # the original framework's path, kept: one child serves both

    task = load_task(task_id)
    prepared = task.get_prepared_datasets(PreparationStrategy.PROMPT_BASED_TESTING, shot_list=[0, 5])
    seconds = time.perf_counter() - start
    if output == "-":
        print(json.dumps({"seconds": seconds}))
        return
    zero_shot = prepared[0]
    result = {
        "seconds": seconds,
        "rows": {str(k): len(v) for k, v in prepared.items()},
        "zero_shot_input": list(zero_shot["input"]),
        "zero_shot_target": [str(t) for t in zero_shot["target"]],
        "datasets_imported": "datasets" in sys.modules,
    }
    with open(output, "w", encoding="utf-8") as handle:
        json.dump(result, handle)


if __name__ == "__main__":
    main()
