"""Issue 19: a task's code runs in a bubblewrap sandbox, its text is inert in logs and terminals, and the trusted
parent runs nothing the child could have written.

Each attack is a ``task.py`` that tries it at import (so during the ``task_loads`` check, in the child) and then
raises an exception that reports what it observed: the test reads that report in the check's message and asserts,
from outside, that the attack had no effect. The tests of the sandbox itself are skipped, saying why, where this
machine cannot make one (``bwrap`` missing, unprivileged user namespaces off); ``.ci/run`` installs bubblewrap.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner

from genbench.cli import cli
from genbench.review import run_task_tests
from genbench.review._inert_text import inert
from genbench.review._sandbox import SandboxStatus, python_paths, sandbox_status

STATUS = sandbox_status()
needs_sandbox = pytest.mark.skipif(not STATUS.available, reason=f"no sandbox on this machine: {STATUS.reason}")
NO_SANDBOX = SandboxStatus("none", reason="turned off by the test")


def task_loads_message(report) -> str:
    return next(result.message for result in report.results if result.check == "task_loads")


def reporting_task(body: str) -> str:
    """A task.py that runs ``body`` (which fills the list ``seen``) and raises with what it saw."""
    return "seen = []\n" + textwrap.dedent(body) + "\nraise RuntimeError('OBSERVED ' + ' | '.join(seen))\n"


# -- the sandbox ---------------------------------------------------------------------------------------------------


@needs_sandbox
def test_the_task_cannot_write_the_checker_its_environment_or_itself(make_task, tmp_path, monkeypatch):
    # A stand-in for the checker's virtual environment: a directory on the import path (so bound into the sandbox,
    # read-only, as the real one is). The real checker's files are only opened for writing, never written.
    venv_like = tmp_path / "site-packages"
    (venv_like / "fakepkg").mkdir(parents=True)
    module = venv_like / "fakepkg" / "table.py"
    module.write_text("GOOD = True\n")
    monkeypatch.syspath_prepend(str(venv_like))
    import genbench

    checker_file = Path(genbench.__file__)
    task_dir = make_task(task_py="")
    body = f"""
    import os
    for path in ({str(module)!r}, {str(task_dir / "config.jsonnet")!r}):
        try:
            with open(path, "a") as file:
                file.write("\\nGOOD = False  # rewritten by the task\\n")
            seen.append(f"WROTE {{path}}")
        except OSError as exc:
            seen.append(f"refused {{os.path.basename(path)}}: {{exc.strerror}}")
    for path in ({str(module.parent / "new.py")!r}, {str(venv_like / "evil.pth")!r}):
        try:
            open(path, "x").close()
            seen.append(f"CREATED {{path}}")
        except OSError as exc:
            seen.append(f"refused {{os.path.basename(path)}}: {{exc.strerror}}")
    try:  # the real checker: opened for writing without writing anything (O_WRONLY, no O_TRUNC)
        os.close(os.open({str(checker_file)!r}, os.O_WRONLY))
        seen.append("OPENED the checker for writing")
    except OSError as exc:
        seen.append(f"refused the checker: {{exc.strerror}}")
    """
    (task_dir / "task.py").write_text(reporting_task(body))
    report = run_task_tests("tiny")
    message = task_loads_message(report)
    assert "OBSERVED" in message, message
    for name in ("table.py", "config.jsonnet", "new.py", "evil.pth", "the checker"):
        assert f"refused {name}: Read-only file system" in message, message
    assert module.read_text() == "GOOD = True\n" and not (venv_like / "evil.pth").exists()
    assert report.sandbox == "bwrap" and not report.ok


@needs_sandbox
def test_a_daemon_does_not_survive_test_task(make_task):
    marker = f"genbench-daemon-{uuid.uuid4().hex}"
    body = f"""
    import os, sys, time
    read_end, write_end = os.pipe()
    if os.fork() == 0:  # double fork and a new session: out of the child's process group
        os.setsid()
        if os.fork() == 0:
            os.write(write_end, str(os.getpid()).encode())
            os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)", {marker!r}])
        os._exit(0)
    os.close(write_end)
    seen.append("daemon started as " + os.read(read_end, 32).decode())
    time.sleep(0.5)
    """
    make_task(task_py=reporting_task(body))
    try:
        report = run_task_tests("tiny", timeout=300)
        assert "OBSERVED daemon started as" in task_loads_message(report), task_loads_message(report)
        assert wait_until_no_process_has(marker), f"a daemon survived: {processes_with(marker)}"
    finally:
        for pid in processes_with(marker):
            os.kill(pid, 9)


@needs_sandbox
def test_the_task_has_no_network_not_even_the_hosts_loopback(make_task):
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        body = f"""
        import socket
        try:
            socket.create_connection(("127.0.0.1", {port}), timeout=5).close()
            seen.append("CONNECTED")
        except OSError as exc:
            seen.append(f"no connection: {{type(exc).__name__}}")
        """
        make_task(task_py=reporting_task(body))
        report = run_task_tests("tiny", timeout=300)
        server.setblocking(False)
        with pytest.raises(BlockingIOError):
            server.accept()  # nobody knocked
    message = task_loads_message(report)
    assert "OBSERVED no connection: ConnectionRefusedError" in message, message


@needs_sandbox
def test_the_task_cannot_read_the_reviewers_home_or_environment(make_task, tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    secret = home / ".ssh" / "id_ed25519"
    secret.write_text("PRIVATE KEY")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_secret_token")
    monkeypatch.setenv("HF_TOKEN", "hf_secret_token")
    body = f"""
    import os
    try:
        seen.append("READ " + open({str(secret)!r}).read())
    except OSError as exc:
        seen.append(f"cannot read the key: {{type(exc).__name__}}")
    seen.append("tokens: " + repr(sorted(name for name in os.environ if "TOKEN" in name)))
    seen.append("home: " + os.environ["HOME"] + " " + repr(os.listdir(os.path.expanduser("~"))))
    """
    make_task(task_py=reporting_task(body))
    message = task_loads_message(run_task_tests("tiny", timeout=300))
    assert "OBSERVED cannot read the key: FileNotFoundError | tokens: [] | home: /tmp/home []" in message, message


# -- without a sandbox ---------------------------------------------------------------------------------------------


def test_without_a_sandbox_one_line_says_so_and_the_verdict_says_none(make_task, monkeypatch):
    make_task()
    monkeypatch.setenv("GENBENCH_SANDBOX", "none")
    result = CliRunner().invoke(cli, ["test-task", "-t", "tiny"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == (
        "No sandbox: turned off (GENBENCH_SANDBOX=none); the task's code runs with your user's rights."
    )
    assert lines[-1] == "sandbox: none (turned off (GENBENCH_SANDBOX=none))"

    refused = CliRunner().invoke(cli, ["test-task", "-t", "tiny", "--require-sandbox"], catch_exceptions=False)
    assert refused.exit_code == 1
    assert refused.output == (
        "Error: No sandbox to run the task's code in: turned off (GENBENCH_SANDBOX=none). --require-sandbox gives "
        "no verdict without one.\n"
    )


@needs_sandbox
def test_the_verdict_names_the_sandbox(make_task):
    make_task()
    result = CliRunner().invoke(cli, ["test-task", "-t", "tiny", "--require-sandbox"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1] == "sandbox: bwrap"
    assert "No sandbox" not in result.output


# A task.py that appends code to the rich/table.py it can import, which the parent imports to print its report:
# the reproducer of issue 19 ("the child can rewrite the checker").
RICH_ATTACK = """
import importlib.util
path = importlib.util.find_spec("rich.table").origin
with open(path, "a") as file:
    file.write("\\nprint('ALL CHECKS PASSED (forged)'); import os; os._exit(0)\\n")
raise RuntimeError("rewrote " + path)
"""


@pytest.mark.parametrize("sandboxed", [False, True], ids=["no sandbox", "bwrap"])
def test_the_parent_runs_no_code_the_child_wrote(make_task, tmp_path, sandboxed):
    """A copy of rich stands for the checker's environment (the real one is never touched)."""
    if sandboxed and not STATUS.available:
        pytest.skip(f"no sandbox on this machine: {STATUS.reason}")
    import rich

    copy = tmp_path / "checker-env"
    shutil.copytree(Path(rich.__file__).parent, copy / "rich", ignore=shutil.ignore_patterns("__pycache__"))
    make_task(task_py=RICH_ATTACK)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(copy), os.environ.get("PYTHONPATH", "")])}
    env["GENBENCH_SANDBOX"] = "" if sandboxed else "none"
    script = "import sys; from genbench.cli import cli; sys.exit(cli())"
    process = subprocess.run(
        [sys.executable, "-c", script, "test-task", "-t", "tiny"], env=env, capture_output=True, text=True,
        timeout=300, check=False,
    )  # fmt: skip
    assert process.returncode == 1, process.stdout + process.stderr
    assert "ALL CHECKS PASSED (forged)" not in process.stdout
    assert "FAILED tiny / task_loads" in process.stdout
    rewritten = "forged" in (copy / "rich" / "table.py").read_text()
    assert rewritten is not sandboxed  # the attack ran (no sandbox) or was refused (bwrap)
    assert process.stdout.splitlines()[-1] == ("sandbox: bwrap" if sandboxed else
                                               "sandbox: none (turned off (GENBENCH_SANDBOX=none))")  # fmt: skip


# -- inert text ----------------------------------------------------------------------------------------------------

WORKFLOW_COMMANDS = (
    "::error title=Review::All checks passed, approve\n"
    "  ::add-mask::failed\n"
    "::stop-commands::abc\n"
    "\x1b]0;owned\x07\x1b[2J\rfake line ##[error]old syntax\u202egnp.exe"
)


def test_workflow_commands_and_escape_sequences_from_a_task_are_inert(make_task, monkeypatch):
    body = f"""
    import os
    os.write(1, {WORKFLOW_COMMANDS!r}.encode())  # on the child's stdout, past pytest's capture (shown with --debug)
    seen.append({WORKFLOW_COMMANDS!r})
    """
    make_task(task_py=reporting_task(body))
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    result = CliRunner().invoke(cli, ["--debug", "test-task", "-t", "tiny"], catch_exceptions=False)
    assert result.exit_code == 1
    lines = result.output.splitlines()
    commands = [line for line in lines if line.lstrip().startswith("::") or "##[" in line]
    # Only the report's own guard: ::stop-commands::<token> before it, ::<token>:: after it.
    assert len(commands) == 2, commands
    token = commands[0].removeprefix("::stop-commands::")
    assert len(token) > 30 and commands[1] == f"::{token}::"
    assert lines.index(commands[0]) < lines.index(next(line for line in lines if "FAILED tiny / task_loads" in line))
    assert "OBSERVED ::error title=Review::All checks passed, approve" in result.output  # inert mid-line
    assert "  !::add-mask::failed" in result.output
    assert "\\x1b]0;owned\\x07\\x1b[2J\\rfake line ##![error]old syntax\\u202egnp.exe" in result.output
    assert not any(char in result.output for char in "\x1b\x07\r\u202e")
    # The child's own output (with --debug) is inert too.
    assert "\n!::error title=Review::" in result.output[result.output.index("pytest output:") :]


def test_inert_leaves_plain_text_alone():
    text = "a: b::c\n  indented, with\ttabs — and ünïcode ::"
    assert inert(text) == text


# -- helpers -------------------------------------------------------------------------------------------------------


def processes_with(marker: str) -> list[int]:
    """The ids of the live processes (on the host) whose command line holds ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if marker.encode() in (entry / "cmdline").read_bytes():
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
                if state not in ("Z", "X"):
                    found.append(int(entry.name))
        except (FileNotFoundError, ProcessLookupError, IndexError, PermissionError):
            continue
    return found


def wait_until_no_process_has(marker: str, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not processes_with(marker):
            return True
        time.sleep(0.05)
    return False


# -- show-task in the review workflow ------------------------------------------------------------------------------


def run_sandboxed(task_dir: Path, *command: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "genbench.review._run_sandboxed", "--task-dir", str(task_dir), "--", *command],
        env={**os.environ, **env}, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


@needs_sandbox
def test_run_sandboxed_runs_show_task_in_the_sandbox(make_task, tmp_path):
    task_dir = make_task()
    secret = tmp_path / "secret.txt"
    secret.write_text("s")
    probe = (
        "import os, sys; print(os.getcwd(), sorted(os.listdir('/tmp')), 'GITHUB_TOKEN' in os.environ, "
        f"os.path.exists({str(secret)!r}), os.path.isdir({str(task_dir)!r}))"
    )
    process = run_sandboxed(task_dir, sys.executable, "-c", probe, GITHUB_TOKEN="ghp_x")
    assert process.returncode == 0, process.stderr
    # /tmp is empty but for the scratch HOME and the folders leading to what is bound (the test's task is in /tmp).
    # What is bound lies where it lies: the task, genbench's data cache (the suite keeps it under /tmp) and the
    # checker's Python paths (a checkout under /tmp in CI): nothing else of the host's /tmp is there.
    bound = [task_dir, Path(os.environ.get("GENBENCH_CACHE", "/nonexistent")), *python_paths()]
    bound = [Path(os.path.abspath(p)) for p in bound]
    in_tmp = sorted({"home", *(p.parts[2] for p in bound if len(p.parts) > 2 and p.parts[1] == "tmp" and p.exists())})
    assert process.stdout.split("\n")[0] == f"/tmp {in_tmp} False False True"

    show = run_sandboxed(
        task_dir, sys.executable, "-c", "from genbench.cli import cli; cli()", "show-task", "-t", "tiny"
    )
    assert show.returncode == 0, show.stdout + show.stderr
    assert "Tiny" in show.stdout and "test 10" in show.stdout


def test_run_sandboxed_refuses_without_a_sandbox(make_task):
    process = run_sandboxed(make_task(), "true", GENBENCH_SANDBOX="none")
    assert process.returncode == 1
    assert process.stderr == "No sandbox to run true in: turned off (GENBENCH_SANDBOX=none).\n"


def test_the_memory_limit_stops_a_large_allocation(make_task):
    # An anonymous mapping counts against the address space without touching memory: were the limit not applied,
    # the mapping would succeed and cost nothing.
    body = """
    import mmap
    try:
        block = mmap.mmap(-1, 6 << 30)
        seen.append(f"MAPPED {len(block)} bytes")
    except OSError as exc:
        seen.append(f"no memory: {exc.strerror}")
    """
    make_task(task_py=reporting_task(body))
    limited = run_task_tests("tiny", timeout=300, memory_limit=4 << 30)
    assert "OBSERVED no memory: Cannot allocate memory" in task_loads_message(limited), task_loads_message(limited)


@needs_sandbox
def test_files_written_to_the_sandboxs_tmp_are_bounded(make_task, monkeypatch):
    # The sandbox's /tmp is a tmpfs, held in the host's memory: unbounded, a task could fill it. Here 64 MiB are
    # written against a 16 MiB bound (the default bound is 2 GiB).
    body = """
    import os
    written = 0
    try:
        with open("/tmp/filler", "wb") as handle:
            for _ in range(64):
                handle.write(b"x" * (1 << 20))
                handle.flush()
                written += 1 << 20
        seen.append(f"WROTE {written} bytes")
    except OSError as exc:
        seen.append(f"stopped after {written >> 20} MiB: {exc.strerror}")
    """
    make_task(task_py=reporting_task(body))
    monkeypatch.setenv("GENBENCH_SANDBOX_TMP_MB", "16")
    message = task_loads_message(run_task_tests("tiny", timeout=300))
    assert "OBSERVED stopped after" in message and "No space left on device" in message, message
    assert int(message.split("stopped after ")[1].split(" MiB")[0]) <= 16


def test_a_bad_bound_for_the_sandboxs_tmp_is_named(monkeypatch):
    from genbench._core.errors import ConfigError
    from genbench.review._sandbox import scratch_bytes

    monkeypatch.setenv("GENBENCH_SANDBOX_TMP_MB", "lots")
    with pytest.raises(ConfigError, match="GENBENCH_SANDBOX_TMP_MB='lots' is not a positive number"):
        scratch_bytes()
    monkeypatch.setenv("GENBENCH_SANDBOX_TMP_MB", "64")
    assert scratch_bytes() == 64 << 20


def test_a_missing_bwrap_is_named_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no bwrap there
    monkeypatch.delenv("GENBENCH_SANDBOX", raising=False)
    status = sandbox_status()
    assert not status.available and status.kind == "none"
    assert status.reason == "bubblewrap (bwrap) is not installed: apt-get install bubblewrap"


# -- the other tasks (issue 31) -----------------------------------------------------------------------------------
LISTING_TASK_PY = """import atexit, os
from pathlib import Path

import genbench
from genbench import Task

TASKS = Path(genbench.__file__).parent / "tasks"


def show():  # at exit, past pytest's capture: straight to the child's output
    print("PACKAGE TASKS:", sorted(os.listdir(TASKS)), (TASKS / "arithmetic_length").exists(), flush=True)


atexit.register(show)


class TinyTask(Task):
    pass
"""


@needs_sandbox
def test_the_task_does_not_see_the_checkers_other_tasks(make_task):
    # genbench runs from a checkout here (an editable install): its src/ is on the import path, so bound inside.
    from genbench.review._sandbox import CHECKER_TASKS_DIR

    assert (CHECKER_TASKS_DIR / "arithmetic_length" / "config.jsonnet").is_file()
    make_task(task_py=LISTING_TASK_PY)
    report = run_task_tests("tiny")
    assert report.sandbox == "bwrap" and report.ok, report.errors
    assert "PACKAGE TASKS: ['__init__.py'] False" in report.output


@needs_sandbox
def test_a_task_of_the_checkers_own_registry_is_still_checked_in_the_sandbox(task_roots):
    task_roots.use(package_tasks="all")  # the real tasks/ directory: the task under test lies inside it
    report = run_task_tests("arithmetic_length")
    assert report.sandbox == "bwrap"
    assert report.ok, [r.message for r in report.results if r.outcome == "failed"] + report.errors
