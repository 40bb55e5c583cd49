"""The GitHub workflows: safe triggers and permissions, no untrusted text in scripts, pinned actions, and the
review job's scripts run here against a stand-in ``genbench-cli``."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = REPO_ROOT / ".github" / "workflows"
REVIEW = WORKFLOWS / "task-review.yml"
CI = WORKFLOWS / "ci.yml"
SUMMARY_SCRIPT = REPO_ROOT / ".github" / "scripts" / "task_review_summary.py"

# Expressions allowed inside `run:` scripts: values the workflow itself defines.
ALLOWED_IN_RUN = re.compile(r"^(matrix|runner)\.[A-Za-z0-9_.-]+$")
# Attacker-controlled context values (pull request text, branch names, commit messages, ...).
UNTRUSTED = re.compile(
    r"github\.(event\.|head_ref)|\.(title|body|head_ref|label|message|name|email)\b(?![-\w])",
)
PINNED_ACTION = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_./-]+@(v\d+|[0-9a-f]{40})$")


def load(path: Path) -> dict[str, Any]:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def triggers(workflow: dict[str, Any]) -> dict[str, Any]:
    # YAML 1.1 reads the bare key `on` as the boolean True.
    on = workflow.get("on", workflow.get(True))
    if isinstance(on, str):
        return {on: None}
    if isinstance(on, list):
        return dict.fromkeys(on)
    return on


def steps(workflow: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(job_id, step) for job_id, job in workflow["jobs"].items() for step in job.get("steps", [])]


def expressions(text: str) -> list[str]:
    return [match.strip() for match in re.findall(r"\$\{\{(.*?)\}\}", text, flags=re.S)]


@pytest.fixture(params=[REVIEW, CI], ids=["task-review", "ci"])
def workflow_path(request: pytest.FixtureRequest) -> Path:
    return request.param


def test_triggers_are_never_pull_request_target(workflow_path: Path):
    on = triggers(load(workflow_path))
    assert "pull_request" in on
    assert "pull_request_target" not in on and "workflow_run" not in on


def test_review_runs_only_for_task_changes():
    on = triggers(load(REVIEW))
    assert set(on) == {"pull_request"}
    assert on["pull_request"]["paths"] == ["src/genbench/tasks/**"]


def test_ci_runs_on_push_and_pull_request():
    assert {"push", "pull_request"} <= set(triggers(load(CI)))


def test_permissions_are_read_only(workflow_path: Path):
    workflow = load(workflow_path)
    assert workflow["permissions"] == {"contents": "read"}
    for job in workflow["jobs"].values():
        assert set(job.get("permissions", {}).values()) <= {"read", "none"}


def injection_problems(workflow: dict[str, Any], text: str) -> list[str]:
    """Expressions in ``run`` scripts beyond the allow-list, and untrusted context values anywhere."""
    problems = []
    for job_id, step in steps(workflow):
        for expression in expressions(step.get("run", "")):
            if not ALLOWED_IN_RUN.match(expression):
                problems.append(f"{job_id}/{step.get('name')}: ${{{{ {expression} }}}} in run")
        for value in (step.get("env") or {}).values():
            if UNTRUSTED.search(str(value)):
                problems.append(f"{job_id}/{step.get('name')}: untrusted env value {value}")
    for expression in expressions(text):
        if UNTRUSTED.search(expression):
            problems.append(f"untrusted value in ${{{{ {expression} }}}}")
    return problems


def test_no_untrusted_text_reaches_a_shell(workflow_path: Path):
    text = workflow_path.read_text(encoding="utf-8")
    assert injection_problems(load(workflow_path), text) == []


@pytest.mark.parametrize(
    "run",
    [
        'echo "${{ github.event.pull_request.title }}"',
        "git checkout ${{ github.head_ref }}",
        "echo ${{ env.X }}",
        "echo ${{ steps.x.outputs.ids }}",
    ],
)
def test_injection_check_catches_unsafe_scripts(run: str):
    text = f"on: pull_request\njobs:\n  j:\n    steps:\n      - run: '{run}'\n"
    assert injection_problems(yaml.safe_load(text), text)


def test_actions_are_pinned_to_a_major_version(workflow_path: Path):
    used = [step["uses"] for _, step in steps(load(workflow_path)) if "uses" in step]
    assert used, "expected checkout and setup-python"
    for action in used:
        assert PINNED_ACTION.match(action), f"{action} is not pinned to a major version (or a full commit SHA)"


def test_checkout_keeps_no_credentials(workflow_path: Path):
    for _, step in steps(load(workflow_path)):
        if step.get("uses", "").startswith("actions/checkout@"):
            assert step["with"]["persist-credentials"] is False


def test_review_job_tests_the_changed_tasks():
    workflow = load(REVIEW)
    all_steps = [step for _, step in steps(workflow)]
    checkout = next(s for s in all_steps if s.get("uses", "").startswith("actions/checkout@"))
    assert checkout["with"]["fetch-depth"] == 0
    python = next(s for s in all_steps if s.get("uses", "").startswith("actions/setup-python@"))
    assert str(python["with"]["python-version"]) == "3.11"
    scripts = "\n".join(s.get("run", "") for s in all_steps)
    assert 'genbench-cli changed-tasks --base "origin/${GITHUB_BASE_REF}"' in scripts
    assert 'genbench-cli test-task -i "$task_id" --submission' in scripts
    assert 'genbench-cli show-task -i "$task_id"' in scripts
    assert "pip install -c constraints.txt -e" in scripts
    assert "make check-quality" in scripts
    assert '>> "$GITHUB_STEP_SUMMARY"' in scripts


def test_ci_job_runs_tests_docs_and_quality():
    scripts = "\n".join(step.get("run", "") for _, step in steps(load(CI)))
    for command in ("make test", "make docs", "make check-quality"):
        assert command in scripts


@pytest.mark.skipif(shutil.which("actionlint") is None, reason="actionlint is not installed (no PyPI package here)")
def test_actionlint(workflow_path: Path):
    process = subprocess.run(["actionlint", str(workflow_path)], capture_output=True, text=True)
    assert process.returncode == 0, process.stdout + process.stderr


# -- the review job's scripts, run here ------------------------------------------------------------------------


def review_step(name: str) -> str:
    return next(step["run"] for _, step in steps(load(REVIEW)) if step.get("name") == name)


FAKE_CLI = """#!/usr/bin/env python3
import sys
command, task_id = sys.argv[1], sys.argv[3]
if command == "test-task":
    print(f"checks of {task_id}: " + ("12 passed" if task_id != "bad_task" else "1 failed, 11 passed"))
    sys.exit(1 if task_id == "bad_task" else 0)
if command == "show-task":
    print(f"{task_id}: A task\\nType         free_form\\nSplits       test 3, train 5\\n--- 0-shot ---\\nQ: ```x```")
"""


@pytest.fixture
def fake_cli(tmp_path: Path) -> dict[str, str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "genbench-cli").write_text(FAKE_CLI.replace("python3", sys.executable, 1))
    (bin_dir / "genbench-cli").chmod(0o755)
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}


def run_step(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    # GitHub runs `shell: bash` scripts as `bash --noprofile --norc -eo pipefail {0}`.
    path = cwd / "step.sh"
    path.write_text(script)
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(path)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
    )


def test_test_step_runs_every_task_and_fails_when_one_fails(tmp_path: Path, fake_cli: dict[str, str]):
    (tmp_path / "changed_tasks.txt").write_text("good_task\nbad_task\n\n")
    process = run_step(review_step("Test the changed tasks"), tmp_path, fake_cli)
    assert process.returncode == 1, process.stderr
    assert "::group::genbench-cli test-task -i good_task --submission" in process.stdout
    assert (tmp_path / "review" / "good_task" / "test.rc").read_text().strip() == "0"
    assert (tmp_path / "review" / "bad_task" / "test.rc").read_text().strip() == "1"
    assert "12 passed" in (tmp_path / "review" / "good_task" / "test.log").read_text()
    assert "Splits" in (tmp_path / "review" / "bad_task" / "show.txt").read_text()

    summary = tmp_path / "summary.md"
    env = {**fake_cli, "GITHUB_STEP_SUMMARY": str(summary)}
    script = review_step("Summary").replace(".github/scripts/", f"{SUMMARY_SCRIPT.parent}/")
    assert run_step(script, tmp_path, env).returncode == 0
    text = summary.read_text()
    assert "| `bad_task` | **failed** | test 3, train 5 |" in text
    assert "| `good_task` | passed | test 3, train 5 |" in text
    assert "````text\ngood_task: A task" in text  # fenced longer than the ``` inside the prompt


def test_test_step_with_no_changed_tasks(tmp_path: Path, fake_cli: dict[str, str]):
    (tmp_path / "changed_tasks.txt").write_text("")
    assert run_step(review_step("Test the changed tasks"), tmp_path, fake_cli).returncode == 0


def load_summary_module():
    spec = importlib.util.spec_from_file_location("task_review_summary", SUMMARY_SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_summary_rendering(tmp_path: Path):
    summary = load_summary_module()
    assert summary.render(tmp_path / "missing") == "## Task review\n\nNo task was added or changed: nothing to test.\n"
    assert summary.fenced("````") == "`````text\n````\n`````"
    assert summary.splits_of("Splits  test 2\n== Subtask\nSplits  test 4\n") == "test 2; test 4"
    task = tmp_path / "review" / "t"
    task.mkdir(parents=True)
    (task / "test.rc").write_text("0\n")
    (task / "test.log").write_text("\n".join(f"line {i}" for i in range(200)))
    text = summary.render(tmp_path / "review")
    assert "| `t` | passed | - |" in text and "(120 lines above)" in text and "(no output)" in text
