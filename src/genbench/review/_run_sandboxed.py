"""``python -m genbench.review._run_sandboxed --task-dir DIR -- COMMAND...``: run a command that executes a task's
code (``genbench-cli show-task``) in the sandbox of ``test-task`` (:mod:`genbench.review._sandbox`), with the task's
directory, genbench's data cache and this Python read-only, no network and a memory limit.

The review workflow runs ``show-task`` this way, after ``test-task`` fetched the task's data into the cache. It
refuses to run without a sandbox (exit status 1, one line saying why): it exists only to run untrusted code.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from genbench.data._cache import cache_dir
from genbench.review._sandbox import (
    DEFAULT_MEMORY_LIMIT,
    child_environment,
    limited_command,
    python_paths,
    sandbox_command,
    sandbox_status,
)

_PACKAGE_PARENT = Path(__file__).resolve().parents[2]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command sandboxed; its exit status (1 with a message on stderr when no sandbox can be made)."""
    parser = argparse.ArgumentParser(prog="python -m genbench.review._run_sandboxed", description=__doc__)
    parser.add_argument("--task-dir", type=Path, action="append", required=True, help="visible read-only inside")
    parser.add_argument("--memory-limit", type=int, default=DEFAULT_MEMORY_LIMIT, help="bytes of address space")
    parser.add_argument("command", nargs="+", help="the command (after --)")
    args = parser.parse_args(argv)
    status = sandbox_status()
    if status.executable is None:
        print(f"No sandbox to run {args.command[0]} in: {status.reason}.", file=sys.stderr)
        return 1
    env = child_environment(os.environ, sandboxed=True)
    env["GENBENCH_CACHE"] = str(cache_dir())
    env["PYTHONPATH"] = os.pathsep.join([str(_PACKAGE_PARENT), *filter(None, [os.environ.get("PYTHONPATH")])])
    visible = [*python_paths(), _PACKAGE_PARENT, cache_dir(), *(path.resolve() for path in args.task_dir)]
    command = sandbox_command(args.command, executable=status.executable, read_only=visible)
    return subprocess.run(
        limited_command(command, args.memory_limit), env=env, stdin=subprocess.DEVNULL, check=False
    ).returncode


if __name__ == "__main__":
    sys.exit(main())
