"""``genbench-cli test-task``: run the task validation suite and print a summary.

The checks that need no task code run in this process; the others run through pytest in a child process whose
verdict this process decides (see :mod:`genbench.review._trust`), in a sandbox where this machine can make one. Every
text that came from the task is printed inert (:mod:`genbench.review._inert_text`), and everything this process runs
to print the report is imported, and run once, before the task's code starts.
"""

from __future__ import annotations

import io
from typing import Any

import click

from genbench._registry.directories import get_task_dir, split_task_id
from genbench.cli.params import FiniteFloatRange, global_setting, json_option, task_option
from genbench.review import CheckResult, TaskTestReport, run_task_tests
from genbench.review._inert_text import actions_guard, in_github_actions, inert
from genbench.review._sandbox import sandbox_status

# Default of --memory-limit, in GiB: genbench.review._sandbox.DEFAULT_MEMORY_LIMIT.
DEFAULT_MEMORY_GIB = 16.0
# genbench.review._runner.DEFAULT_TIMEOUT, repeated so that `genbench-cli --help` does not import the suite (a test
# checks that the two agree).
DEFAULT_TIMEOUT = 1800.0

_STYLES = {"passed": "green", "warning": "yellow", "skipped": "dim", "failed": "bold red"}
_DETAIL_WIDTH = 90


def _first_line(text: str, width: int = _DETAIL_WIDTH) -> str:
    """The first line of a message; a heading line ending with ':' takes its first item along."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    line = lines[0] if lines else ""
    if line.endswith(":") and len(lines) > 1:
        line = f"{line} {lines[1].removeprefix('- ')}"
    return line if len(line) <= width else line[: width - 3] + "..."


def _detail(result: Any) -> str:
    if result.outcome in ("failed", "skipped"):
        return _first_line(inert(result.message))
    if result.warnings:
        return _first_line(inert(result.warnings[0]))
    return ""


def _text(text: str) -> str:
    """Text of the task's (or of a check's message about it), inert and escaped for rich markup."""
    from rich.markup import escape

    return escape(inert(text))


class _Progress:
    """Progress on stderr: a bar on a terminal, else one line per check in the report's order (CI logs, captured
    output); nothing under ``--quiet`` or ``--no-progress``. Stdout carries only the report."""

    def __init__(self, task_id: str, console: Any, *, enabled: bool = True):
        self.task_id = task_id
        self.console = console
        self.enabled = enabled
        self.bar: Any = None
        self.bar_task: Any = None
        # Checks finish out of the report's order (those needing the task's code run last, in a child process):
        # each line waits for those of the rows above it.
        self.waiting: dict[int, dict[str, Any]] = {}
        self.next_position = 1

    def __enter__(self) -> _Progress:
        if not self.enabled:
            return self
        if self.console.is_terminal:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn

            self.bar = Progress(
                SpinnerColumn(),
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                console=self.console,
                transient=True,
            )
            self.bar.__enter__()
            self.bar_task = self.bar.add_task(f"Checking {self.task_id}", total=None)
        else:
            self.console.print(f"Running the checks of {self.task_id}...", markup=False, highlight=False)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.bar is not None:
            self.bar.__exit__(*exc)

    def __call__(self, event: dict[str, Any]) -> None:
        if not self.enabled:
            return
        kind = event["event"]
        if self.bar is not None:
            if kind == "collected":
                self.bar.update(self.bar_task, total=event["total"], description="Checking")
            elif kind == "start":
                self.bar.update(self.bar_task, description=f"{event['task_id']}: {event['check']}")
            elif kind == "result":
                self.bar.update(self.bar_task, completed=event["index"])
        elif kind == "result":
            self.waiting[event["position"]] = event
            while self.next_position in self.waiting:
                self._print_line(self.waiting.pop(self.next_position))
                self.next_position += 1

    def _print_line(self, event: dict[str, Any]) -> None:
        result = event["result"]
        width = len(str(event["total"]))
        self.console.print(
            f"[{event['position']:>{width}}/{event['total']}] {result.outcome.upper():8} "
            f"{result.task_id} / {result.check}",
            markup=False,
            highlight=False,
        )


def print_report(report: Any, console: Any, *, debug: bool = False) -> None:
    """Print a report: a table of every check, then every failure and warning in full, then the totals and what
    the task's code ran in (``sandbox: bwrap`` or ``sandbox: none``).

    Every text that may come from the task (messages, warnings, errors, the child's output) is printed
    :func:`~genbench.review._inert_text.inert`: no terminal escape sequence or workflow command in it takes effect.
    """
    from rich.table import Table

    escape = _text
    table = Table(
        title=f"genbench test-task {escape(report.task_id)}" + (" (submission)" if report.submission else "")
    )
    table.add_column("Task", no_wrap=True)
    table.add_column("Check", no_wrap=True)
    table.add_column("Result", no_wrap=True)
    table.add_column("Details", overflow="fold")
    for result in report.results:
        style = _STYLES[result.outcome]
        table.add_row(
            escape(result.task_id), escape(result.check), f"[{style}]{result.outcome}[/]", escape(_detail(result))
        )
    if report.results:
        console.print(table)
    for result in report.results:
        header = f"{escape(result.task_id)} / {escape(result.check)}: {escape(result.title)}"
        if result.outcome == "failed":
            console.print(f"\n[bold red]FAILED[/] {header}")
            console.print(escape(result.message), highlight=False, soft_wrap=True)
            if debug and result.details:
                console.print(escape(result.details), highlight=False, soft_wrap=True)
        for warning in result.warnings:
            console.print(f"\n[yellow]WARNING[/] {header}")
            console.print(escape(warning), highlight=False, soft_wrap=True)
    for error in report.errors:
        console.print("\n[bold red]ERROR[/] running the suite:")
        console.print(escape(error), highlight=False, soft_wrap=True)
    if debug and report.output.strip():
        console.print("\n[dim]pytest output:[/]")
        console.print(escape(report.output), highlight=False, soft_wrap=True)
    style = "bold red" if not report.ok else ("yellow" if report.warnings else "bold green")
    console.print(f"\n[{style}]{escape(report.summary_line())}[/] in {report.duration:.1f} s")
    if report.sandbox:
        reason = f" ({escape(report.sandbox_reason)})" if report.sandbox_reason else ""
        console.print(f"sandbox: {escape(report.sandbox)}{reason}", highlight=False)


def _load_printing(debug: bool) -> None:
    """Import, and run once, everything :func:`print_report` runs (rich's table, box, padding, markup, wrapping
    modules are imported lazily), so that nothing the task's code could have written is executed after it ran."""
    from rich.console import Console

    sample = TaskTestReport("sample", submission=True, errors=["e"], output="o", sandbox="none", sandbox_reason="r")
    for outcome in ("passed", "warning", "skipped", "failed"):
        sample.results.append(CheckResult("sample", outcome, "t", outcome, "m:\n- x", ["w"], 0.0, "d"))  # type: ignore[arg-type]
    for width in (160, 40):
        print_report(sample, Console(file=io.StringIO(), width=width, force_terminal=True), debug=debug)


@click.command("test-task")
@task_option(help="Task to test: 'my_task', or 'my_task:subtask' for one subtask of a task with subtasks.")
@click.option(
    "--submission",
    is_flag=True,
    help="Check as for a submission: an unfinished doc.md (the template text, or under 30 words) fails instead of "
    "warning. Use it before `genbench-cli submit-task`; the pull-request review does.",
)
@click.option(
    "--timeout",
    type=FiniteFloatRange(min=0, min_open=True),
    default=DEFAULT_TIMEOUT,
    show_default=True,
    metavar="SECONDS",
    help="Stop the checks that run the task's code after this many seconds (they and every process they started "
    "are killed, as on SIGTERM or Ctrl-C); the unfinished checks fail.",
)
@click.option(
    "--memory-limit",
    type=FiniteFloatRange(min=0, min_open=True),
    default=DEFAULT_MEMORY_GIB,
    show_default=True,
    metavar="GIB",
    help="Address space each process running the task's code may map, in GiB; beyond it allocations fail.",
)
@click.option(
    "--require-sandbox",
    is_flag=True,
    help="Refuse to run the task's code without a sandbox (bwrap missing or unusable): exit with an error and no "
    "verdict. The review workflow uses it.",
)
@click.option(
    "--no-task-code",
    is_flag=True,
    help="Run only the checks that need none of the task's code (files, config, doc.md, and the data checks of a "
    "task whose data comes from its config); the others are skipped. The review's first job uses it.",
)
@json_option(help="Print the report as JSON (every check's outcome, message and details) instead of the table.")
@click.pass_context
def cli_test_task(
    ctx: click.Context,
    task_id: str,
    submission: bool,
    timeout: float,
    memory_limit: float,
    require_sandbox: bool,
    no_task_code: bool,
    as_json: bool,
) -> None:
    """Check that a task is well-formed, by running genbench's validation suite on it.

    For a task with subtasks, its own checks run and then every subtask's. Each check (task files, required
    files, config, doc.md, data, example types, duplicates, train/test overlap, best scores of gold predictions,
    prompts, finetuning datasets) is reported as passed, failed, skipped or warning, with the reason. Exits with
    status 1 when a check fails. Every GenbenchConfigWarning of the config fails the config check. The checks that
    need the task's code run through pytest in a child process with a time and a memory limit, in a bubblewrap
    sandbox (no network, no file outside the task and the checker, nothing left running) where this machine can
    make one: otherwise one line says why and the report ends with "sandbox: none". The others never import it.
    Task directories outside the package are found through GENBENCH_TASKS_PATH.

    \b
    Examples:
      genbench-cli test-task -t my_awesome_task
      genbench-cli test-task -t my_awesome_task --submission
      genbench-cli test-task -t my_awesome_task --timeout 600
      GENBENCH_TASKS_PATH=~/my_tasks genbench-cli test-task -t my_task
    """
    from rich.console import Console

    get_task_dir(*split_task_id(task_id))  # an unknown id is one error line, before anything starts
    debug = bool((ctx.obj or {}).get("debug"))
    sandbox = None
    if not no_task_code:
        sandbox = sandbox_status()
        if not sandbox.available and require_sandbox:
            raise click.ClickException(
                f"No sandbox to run the task's code in: {sandbox.reason}. --require-sandbox gives no verdict without "
                "one."
            )
    console = Console()
    if not console.is_terminal:  # keep lines unwrapped in logs and captured output
        console = Console(width=160)
    err_console = Console(stderr=True)
    if not err_console.is_terminal:
        err_console = Console(stderr=True, width=160)
    if sandbox is not None and not sandbox.available:  # a warning: printed under --quiet too
        err_console.print(
            f"No sandbox: {sandbox.reason}; the task's code runs with your user's rights.",
            markup=False,
            highlight=False,
        )
    _load_printing(debug)
    with _Progress(task_id, err_console, enabled=global_setting("progress")) as progress:
        report = run_task_tests(
            task_id,
            submission=submission,
            on_event=progress,
            timeout=timeout,
            run_task_code=not no_task_code,
            memory_limit=int(memory_limit * (1 << 30)),
            sandbox=sandbox,
        )
    with actions_guard(lambda line: console.print(line, markup=False, highlight=False), enabled=in_github_actions()):
        if as_json:  # json.dumps escapes control characters: the task's text stays inert
            click.echo(report.to_json())
        else:
            print_report(report, console, debug=debug)
    if report.errors:
        raise click.ClickException(f"The checks of task {task_id!r} could not run to the end (see above).")
    if report.failures:
        failed = len(report.failures)
        raise click.ClickException(
            f"{failed} of {len(report.results)} check{'s' if len(report.results) != 1 else ''} failed for task "
            f"{task_id!r}; see the messages above."
        )
