"""The review cannot be forged: a task's code cannot turn a failed run into a pass, checks that need no task code
never import it, unsafe task directories are failures, and the child is killed with everything it started."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner

from genbench.cli import cli
from genbench.review import plan_checks, run_task_tests
from genbench.review._isolation import run_child

GENBENCH_CLI = Path(sys.executable).with_name("genbench-cli")
TASK_CODE_CHECKS = [
    "task_loads", "method_names", "gold_scores", "primary_metric", "metric_directions", "prompts", "finetuning"
]  # fmt: skip

# An attacker's task.py: its gold_scores check fails (best_score 2.0), and it tries every way to report a pass.
FORGING_TASK_PY = textwrap.dedent(
    """
    import atexit, glob, json, os, sys, tempfile
    from genbench import Task

    CASES = [f"tiny/{name}" for name in CHECK_NAMES]
    PASSED = {"outcome": "passed", "message": "", "warnings": [], "details": "", "duration": 0.0}
    FAKE_REPORT = json.dumps({"task_id": "tiny", "results": [
        {"task_id": "tiny", "check": case.split("/")[1], "title": "t", "outcome": "passed"} for case in CASES]})
    fd = int(sys.argv[sys.argv.index("--genbench-result-fd") + 1]) if "--genbench-result-fd" in sys.argv else None
    saved_fd = os.dup(fd) if fd is not None else None  # kept open past the end of the run

    def record(event, **data):
        if saved_fd is not None:
            os.write(saved_fd, (json.dumps({"event": event, **data}) + "\\n").encode())

    # Before any real result: a forged pass for the check that will fail.
    record("result", case="tiny/gold_scores", result=PASSED)

    def forge():
        # Fake results on stdout, in the old progress format and as plain records.
        for case in CASES:
            print("@@genbench-progress@@ " + json.dumps({"event": "result", "result": {"check": case}, **PASSED}))
            print(json.dumps({"event": "result", "case": case, "result": PASSED}))
        # Rewrite any report file in this run's temporary directory (the folder of its pytest.ini; only this run's:
        # other runs of the suite may be going on in parallel).
        own = os.path.dirname(sys.argv[sys.argv.index("-c") + 1]) if "-c" in sys.argv else tempfile.gettempdir()
        for path in glob.glob(os.path.join(own, "*")):
            try:
                with open(path, "w") as file:
                    file.write(FAKE_REPORT)
            except OSError:
                pass
        # Forged passes for every check, after the real end of the run, and a clean exit status.
        for case in CASES:
            record("result", case=case, result=PASSED)
        record("end")
        sys.stdout.flush()
        os._exit(0)

    atexit.register(forge)


    class TinyTask(Task):
        pass
    """
).replace("CHECK_NAMES", repr(TASK_CODE_CHECKS))


def test_an_atexit_forgery_does_not_turn_a_failure_into_a_pass(make_task, task_config):
    make_task(
        config=task_config(evaluation_metrics=[{"hf_id": "exact_match", "best_score": 2.0}]), task_py=FORGING_TASK_PY
    )
    result = CliRunner().invoke(cli, ["test-task", "-i", "tiny"], catch_exceptions=False)
    assert result.exit_code == 1, result.output
    assert "FAILED tiny / gold_scores: Gold predictions reach best_score" in result.output
    assert "The process running the task's code broke the result protocol" in result.output
    assert "a second result for tiny/gold_scores" in result.output
    assert "a record after the end record" in result.output
    assert "Error: The checks of task 'tiny' could not run to the end (see above)." in result.output


EARLY_EXIT_TASK_PY = """
import json, os, sys
passed = {"outcome": "passed", "message": "", "warnings": [], "details": "", "duration": 0.0}
for name in CHECK_NAMES:  # fake results on stdout and stderr, in every format the suite ever used
    for stream in (sys.stdout, sys.stderr):
        print(json.dumps({"event": "result", "case": f"tiny/{name}", "result": passed}), file=stream)
        print("@@genbench-progress@@ " + json.dumps({"event": "result", "result": {"check": name, **passed}}))
sys.stdout.flush()
os._exit(0)
""".replace("CHECK_NAMES", repr(TASK_CODE_CHECKS))


def test_exiting_early_with_status_zero_fails_every_unreported_check(make_task):
    make_task(task_py=EARLY_EXIT_TASK_PY)
    report = run_task_tests("tiny")
    assert not report.ok and report.exit_code == 0
    outcomes = {result.check: result.outcome for result in report.results}
    assert [outcomes[name] for name in TASK_CODE_CHECKS] == ["failed"] * len(TASK_CODE_CHECKS)
    assert outcomes["data_loads"] == "passed"  # the trusted checks ran without the task's code
    assert report.errors[0].startswith("pytest ran no task check (exit status 0).")
    message = next(result.message for result in report.results if result.check == "task_loads")
    assert message.startswith("No result: the process running the task's code ended (exit status 0)")


def test_checks_that_need_no_task_code_never_import_it(make_task, tmp_path):
    marker = tmp_path / "imported"
    rows = {"train": [{"input": "a", "target": "b"}] * 2, "test": [{"input": "a", "target": "b"}]}
    task_py = f"open({str(marker)!r}, 'w').close()\nfrom genbench import Task\nclass T(Task): pass\n"
    make_task(rows=rows, task_py=task_py)
    report = run_task_tests("tiny", run_task_code=False)
    outcomes = {result.check: result.outcome for result in report.results}
    assert not marker.exists()
    assert outcomes["no_duplicates"] == "warning" and outcomes["test_overlap"] == "failed"
    assert {outcomes[name] for name in TASK_CODE_CHECKS} == {"skipped"}
    assert not report.ok and report.exit_code is None


def test_data_checks_need_task_code_when_the_code_shapes_the_data(make_task):
    make_task(
        task_py="from genbench import Task\nclass T(Task):\n    def format_example(self, ex):\n        return ex\n"
    )
    make_task("plain")
    shaped = {case.check.name for case in plan_checks("tiny", isolate=True) if case.needs_task_code}
    plain = {case.check.name for case in plan_checks("plain", isolate=True) if case.needs_task_code}
    assert plain == set(TASK_CODE_CHECKS)
    assert shaped == plain | {"split_file", "data_loads", "declared_splits", "no_iterable_dataset", "example_types",
                              "no_duplicates", "test_overlap", "ngram_overlap"}  # fmt: skip


# -- symlinks and directories ------------------------------------------------------------------------------------


def test_a_symlinked_task_directory_fails_and_nothing_of_it_runs(task_root, tmp_path, make_task):
    marker = tmp_path / "imported"
    elsewhere = make_task("hidden_task", parent=tmp_path / "docs", task_py=f"open({str(marker)!r}, 'w').close()\n")
    (task_root / "hidden_task").symlink_to(elsewhere, target_is_directory=True)
    report = run_task_tests("hidden_task")
    first = report.results[0]
    assert (first.check, first.outcome) == ("task_files", "failed")
    assert "the task directory hidden_task is a symbolic link" in first.message
    assert {result.outcome for result in report.results[1:]} == {"skipped"}
    assert not marker.exists() and not report.ok


def test_a_symlink_inside_the_task_fails(make_task, tmp_path):
    secret = tmp_path / "secret.jsonl"
    secret.write_text('{"input": "x", "target": "y"}\n')
    task_dir = make_task(rows={"train": [{"input": "a", "target": "b"}]})
    (task_dir / "test.jsonl").symlink_to(secret)
    (task_dir / "data").mkdir()
    (task_dir / "data" / "more").symlink_to(tmp_path, target_is_directory=True)
    report = run_task_tests("tiny")
    first = report.results[0]
    assert first.outcome == "failed"
    assert f"test.jsonl is a symbolic link (to {str(secret)!r})" in first.message
    assert "data/more is a symbolic link" in first.message
    assert report.results[1].message.startswith("the task directory holds entries a task may not have")


# -- the child protocol, with a stand-in child ---------------------------------------------------------------------


def child(script: str, expected: list[str], timeout: float | None = 20.0):
    return run_child(
        [sys.executable, "-c", textwrap.dedent(script), "{fd}"], expected=expected, env=dict(os.environ),
        timeout=timeout,
    )  # fmt: skip


RECORD = """
import json, os, sys
fd = int(sys.argv[1])
def send(text):
    os.write(fd, text.encode())
PASSED = {"outcome": "passed", "message": "", "warnings": [], "details": "", "duration": 0.1}
"""


def test_the_parent_accepts_a_clean_stream():
    run = child(RECORD + 'send(json.dumps({"event": "result", "case": "t/a", "result": PASSED}) + "\\n")\n'
                'send(\'{"event": "end"}\\n\')', ["t/a"])  # fmt: skip
    assert run.results == {"t/a": {"outcome": "passed", "message": "", "warnings": [], "details": "", "duration": 0.1}}
    assert run.ended and run.violations == [] and run.exit_code == 0


@pytest.mark.parametrize(
    ("body", "violation"),
    [
        ('send("not json\\n")', "a line that is not a JSON record"),
        ('send(json.dumps({"event": "result", "case": "t/other", "result": PASSED}) + "\\n")', "an unexpected record"),
        (
            'send(json.dumps({"event": "result", "case": "t/a", "result": {**PASSED, "outcome": "great"}}) + "\\n")',
            "a malformed result for t/a",
        ),
        ('send(\'{"event": "end"}\\n{"event": "end"}\\n\')', "a record after the end record"),
        ('send(\'{"event": "start", "case": ["t/a"]}\\n\')', "an unexpected record"),
        ('send(\'{"event": "start", "case": "t/a"}\')', "the child's last record is cut off"),
        ('send("x" * (1 << 21))', "the child sent a record longer than"),
    ],
)
def test_protocol_violations(body: str, violation: str):
    run = child(RECORD + body, ["t/a"])
    assert any(item.startswith(violation) for item in run.violations), run.violations


# Starts a grandchild, writes both process ids, and sleeps: as a stand-in child, and as a task's task.py.
GRANDCHILD = """
import os, subprocess, sys, time
sleeper = subprocess.Popen(["sleep", "600"])
with open(sys.argv[2], "w") as file:
    file.write(f"{os.getpid()} {sleeper.pid}")
time.sleep(600)
"""


def gone(pid: int) -> bool:
    """The process has ended (a zombie waiting for its reaper counts as ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return True
    return state in ("Z", "X")


def wait_until_gone(pids: list[int], seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if all(gone(pid) for pid in pids):
            return True
        time.sleep(0.05)
    return False


def test_the_time_limit_kills_the_child_and_what_it_started(tmp_path):
    pid_file = tmp_path / "pids"
    start = time.monotonic()
    run = run_child([sys.executable, "-c", GRANDCHILD, "{fd}", str(pid_file)], expected=["t/a"], env=dict(os.environ),
                    timeout=3.0)  # fmt: skip
    assert run.timed_out and run.exit_code == -signal.SIGKILL and time.monotonic() - start < 30
    pids = [int(pid) for pid in pid_file.read_text().split()]
    assert len(pids) == 2 and wait_until_gone(pids)


def descendants(pid: int) -> list[int]:
    """The live processes below ``pid`` (host process ids, through every PID namespace)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child_pid in children.get(todo.pop(), []):
            found.append(child_pid)
            todo.append(child_pid)
    return [child_pid for child_pid in found if not gone(child_pid)]


def sleeper_started(pids: list[int], marker: str) -> bool:
    for pid in pids:
        try:
            if marker.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                return True
        except (FileNotFoundError, ProcessLookupError):
            continue
    return False


@pytest.mark.skipif(not GENBENCH_CLI.is_file(), reason="genbench-cli is not installed next to this Python")
@pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 128 + signal.SIGTERM), (signal.SIGINT, 1)])
def test_a_signal_to_test_task_kills_every_process_it_started(make_task, signum, status):
    # The task's code cannot write outside its sandbox: the test finds its processes below test-task's instead.
    marker = f"genbench-sleeper-{uuid.uuid4().hex}"
    task_py = f"""
import subprocess, sys, time
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", {marker!r}])
time.sleep(600)
"""
    make_task(task_py=task_py)
    process = subprocess.Popen(
        [str(GENBENCH_CLI), "test-task", "-i", "tiny"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    deadline = time.monotonic() + 120
    while not sleeper_started(pids := descendants(process.pid), marker):
        assert time.monotonic() < deadline and process.poll() is None, process.communicate()[0]
        time.sleep(0.05)
    process.send_signal(signum)
    output, _ = process.communicate(timeout=60)
    assert process.returncode == status, output  # Ctrl-C: click's "Aborted!"
    assert len(pids) >= 2 and wait_until_gone(pids), f"still running: {[pid for pid in pids if not gone(pid)]}"


def test_results_keep_the_parents_names():
    """A record's task id, check name and title come from the parent's plan, never from the child."""
    run = child(RECORD + 'send(json.dumps({"event": "result", "case": "t/a", "result": {**PASSED, "check": "x"}})'
                ' + "\\n")', ["t/a"])  # fmt: skip
    assert run.results["t/a"] == {"outcome": "passed", "message": "", "warnings": [], "details": "", "duration": 0.1}


# -- strict at the gate: GenbenchConfigWarning fails the config check ---------------------------------------------


def test_config_warnings_fail_test_task(make_task, task_config):
    """The seed guide's legacy metric form and an unknown key load (with GenbenchConfigWarnings) but fail the gate,
    in every run, not only with --submission."""
    legacy = task_config(evaluation_metrics=[{"type": "hf", "path": ["EM"], "best_score": 1.0}], colour="blue")
    task_dir = make_task(config=legacy)
    make_task("clean")
    result = CliRunner().invoke(cli, ["test-task", "-i", "tiny", "--no-task-code"], catch_exceptions=False)
    assert result.exit_code == 1, result.output
    assert "FAILED tiny / config: config.jsonnet is valid" in result.output
    assert "config.jsonnet loads, but with 2 warnings that a submitted task may not have:" in result.output
    file = task_dir / "config.jsonnet"
    assert f"  - {file}:1: colour: unknown field, ignored; delete it" in result.output
    assert f"  - {file}:1: evaluation_metrics.0.path: the original guide's legacy metric form; write hf_id: " in (
        result.output
    )
    # Only the config check fails: the data checks ran on the (leniently loaded) config.
    report = run_task_tests("tiny", run_task_code=False)
    outcomes = {result.check: result.outcome for result in report.results}
    assert [check for check, outcome in outcomes.items() if outcome == "failed"] == ["config"]
    assert outcomes["data_loads"] == "passed"
    assert run_task_tests("clean", run_task_code=False).failures == []
