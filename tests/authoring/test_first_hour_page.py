"""docs/first_hour.md runs as written: every ``$`` line of its console blocks, in order, in a fork's clone.

The clone and the install are the test's own (a genbench checkout in ``tmp_path`` whose ``origin`` is a local bare
repository; genbench from this checkout, with ``GENBENCH_TASKS_PATH`` as the page says for that case); the one step
done by hand, editing ``doc.md``, is written by the test.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from .submission_helpers import genbench_clone

PAGE = Path(__file__).resolve().parents[2] / "docs" / "first_hour.md"
BIN = Path(sys.executable).parent
DOC = """# My First Task

Adds two numbers. The training sums use small operands and the test sums larger ones, so the task measures
whether a model extends addition to lengths it has not seen. The data was written by the authors for this
task and is released under the Apache-2.0 licence; it holds a handful of examples per split.
"""


def page_steps(text: str) -> list[str]:
    """The lines of the page's console blocks: commands (``$ ...``) and steps done by hand (``# ...``), in order."""
    steps = []
    for block in re.findall(r"```console\n(.*?)```", text, flags=re.DOTALL):
        steps.extend(line for line in block.splitlines() if line.startswith(("$ ", "# ")))
    return steps


def test_the_first_hour_page_runs_as_written(tmp_path: Path):
    clone = genbench_clone(tmp_path)
    env = {k: v for k, v in os.environ.items() if k not in {"GENBENCH_TASKS_PATH", "GITHUB_TOKEN"}}
    env["GENBENCH_TASKS_PATH"] = str(clone / "src" / "genbench" / "tasks")  # genbench installed from elsewhere
    steps = page_steps(PAGE.read_text(encoding="utf-8"))
    assert any("make-tiny" in step for step in steps) and any("submit-task" in step for step in steps)
    outputs = {}
    for step in steps:
        if step.startswith("# "):
            assert step == "# edit src/genbench/tasks/my_first_task/doc.md", (
                f"a manual step the test cannot do: {step}"
            )
            (clone / "src" / "genbench" / "tasks" / "my_first_task" / "doc.md").write_text(DOC, encoding="utf-8")
            continue
        argv = shlex.split(step[2:])
        if argv[:2] == ["git", "clone"] or argv[0] == "pip":
            continue  # the test's own clone and install
        if argv[0] == "genbench-cli":
            argv[0] = str(BIN / "genbench-cli")
        process = subprocess.run(argv, cwd=clone, env=env, capture_output=True, text=True, timeout=600)
        assert process.returncode == 0, f"{step}\n{process.stdout}\n{process.stderr}"
        outputs[argv[1]] = process.stdout

    assert (clone / "site" / "index.html").is_file()
    assert list((clone / "results").rglob("my_first_task.json"))
    assert "https://github.com/GenBench/genbench_cbt/compare/main...alice:my_first_task" in outputs["submit-task"]
