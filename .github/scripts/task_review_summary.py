"""Write the Markdown summary of a task review run (for ``$GITHUB_STEP_SUMMARY``).

Usage: ``python .github/scripts/task_review_summary.py REVIEW_DIR``

``REVIEW_DIR`` holds one directory per tested task id, written by the "Test the changed tasks" step of
``task-review.yml``: ``test.rc`` (0 or 1), ``test.log`` (``genbench-cli test-task`` output) and ``show.txt``
(``genbench-cli show-task`` output: split sizes and example prompts). Standard library only, so the summary is
written even when installing genbench failed. Everything a task printed is shown inside code fences longer than
any run of backticks it contains, so it cannot change the Markdown around it.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

MAX_SHOW_LINES = 200
MAX_LOG_LINES = 80


def fenced(text: str, info: str = "text") -> str:
    """``text`` in a code fence longer than any backtick run inside it.

    >>> print(fenced("a ``` b"))
    ````text
    a ``` b
    ````
    """
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text.rstrip()}\n{fence}"


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""


def _head(text: str, limit: int) -> str:
    lines = text.splitlines()
    return "\n".join(lines[:limit] + ([f"... ({len(lines) - limit} more lines)"] if len(lines) > limit else []))


def _tail(text: str, limit: int) -> str:
    lines = text.splitlines()
    return "\n".join(([f"... ({len(lines) - limit} lines above)"] if len(lines) > limit else []) + lines[-limit:])


def _cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("`", "'").replace("\n", " ") or "-"


def splits_of(show_output: str) -> str:
    """The split sizes from ``show-task`` output (one ``Splits`` line per task or subtask).

    >>> splits_of("Type    free_form\\nSplits  train 10, test 5\\n")
    'train 10, test 5'
    """
    found = [line.split(None, 1)[1].strip() for line in show_output.splitlines() if re.match(r"^Splits\s+\S", line)]
    return "; ".join(found)


def render(review_dir: Path) -> str:
    """The Markdown summary of every task under ``review_dir``."""
    task_dirs = sorted(p for p in review_dir.iterdir() if p.is_dir()) if review_dir.is_dir() else []
    lines = ["## Task review", ""]
    if not task_dirs:
        lines.append("No task was added or changed: nothing to test.")
        return "\n".join(lines) + "\n"
    lines += ["| Task | `test-task --submission` | Examples per split |", "| --- | --- | --- |"]
    for task_dir in task_dirs:
        passed = _read(task_dir / "test.rc").strip() == "0"
        result = "passed" if passed else "**failed**"
        lines.append(f"| `{_cell(task_dir.name)}` | {result} | {_cell(splits_of(_read(task_dir / 'show.txt')))} |")
    for task_dir in task_dirs:
        lines += ["", f"### `{_cell(task_dir.name)}`", ""]
        show = _read(task_dir / "show.txt").strip()
        lines += ["Config summary, split sizes and sample prompts (`genbench-cli show-task`):", ""]
        lines += [fenced(_head(show, MAX_SHOW_LINES) or "(no output)"), ""]
        lines += ["<details><summary>Validation suite output (<code>genbench-cli test-task</code>)</summary>", ""]
        lines += [fenced(_tail(_read(task_dir / "test.log"), MAX_LOG_LINES) or "(no output)"), "", "</details>"]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    sys.stdout.write(render(Path(argv[0])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
