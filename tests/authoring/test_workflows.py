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
CI_RUN = REPO_ROOT / ".ci" / "run"
SUMMARY_SCRIPT = REPO_ROOT / ".github" / "scripts" / "task_review_summary.py"

# Expressions allowed inside `run:` scripts: values the workflow itself defines.
ALLOWED_IN_RUN = re.compile(r"^(matrix|runner)\.[A-Za-z0-9_.-]+$")
# Attacker-controlled context values (pull request text, branch names, commit messages, ...).
UNTRUSTED = re.compile(
    r"github\.(event\.|head_ref)|\.(title|body|head_ref|label|message|name|email)\b(?![-\w])",
)
PINNED_ACTION = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_./-]+@[0-9a-f]{40}$")
# A pinned action's line names its version: `uses: actions/checkout@<sha> # v4.4.0`.
USES_LINE = re.compile(r"^\s*(?:-\s+)?uses:\s*(\S+)(?:\s+#\s*(v\d+\.\d+\.\d+))?\s*$")


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


def test_permissions_are_none_by_default_and_read_only_per_job(workflow_path: Path):
    workflow = load(workflow_path)
    assert workflow["permissions"] == {}  # a job that does not say what it needs gets nothing
    for job_id, job in workflow["jobs"].items():
        assert job.get("permissions") == {"contents": "read"}, f"job {job_id}: permissions {job.get('permissions')}"


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


def test_actions_are_pinned_by_commit_sha_with_their_version(workflow_path: Path):
    used = [step["uses"] for _, step in steps(load(workflow_path)) if "uses" in step]
    assert used, "expected checkout and setup-python"
    for action in used:
        assert PINNED_ACTION.match(action), f"{action} is not pinned to a full commit SHA (a tag can be moved)"
    lines = [m for line in workflow_path.read_text(encoding="utf-8").splitlines() if (m := USES_LINE.match(line))]
    assert [m.group(1) for m in lines] == used
    for match in lines:
        assert match.group(2), f"{match.group(1)}: say its version in a comment (# v1.2.3)"


def test_checkout_keeps_no_credentials(workflow_path: Path):
    for _, step in steps(load(workflow_path)):
        if step.get("uses", "").startswith("actions/checkout@"):
            assert step["with"]["persist-credentials"] is False


def review_jobs() -> dict[str, dict[str, Any]]:
    return load(REVIEW)["jobs"]


def job_script(job: dict[str, Any]) -> str:
    return "\n".join(step.get("run", "") for step in job["steps"])


def test_review_job_tests_the_changed_tasks():
    jobs = review_jobs()
    assert set(jobs) == {"static", "task-code"}
    for job in jobs.values():
        python = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/setup-python@"))
        assert str(python["with"]["python-version"]) == "3.11"
        script = job_script(job)
        assert 'genbench-cli changed-tasks --repo submission --base "origin/${GITHUB_BASE_REF}"' in script
        assert 'echo "GENBENCH_TASKS_PATH=$PWD/review-tasks" >> "$GITHUB_ENV"' in script
    static = job_script(jobs["static"])
    assert 'genbench-cli test-task -t "$task_id" --submission --no-task-code' in static
    assert "ruff check --config ../trusted/pyproject.toml src tests benchmarks .github" in static
    task_code = job_script(jobs["task-code"])
    assert 'genbench-cli test-task -t "$task_id" --submission --timeout 1800 --require-sandbox' in task_code
    # The task's code runs sandboxed only: test-task refuses without a sandbox, show-task runs inside one.
    runs = [line.strip() for line in task_code.splitlines() if "genbench-cli test-task" in line]
    runs = [line for line in runs if not line.startswith("echo ")]
    assert runs and all("--require-sandbox" in line for line in runs), runs
    sandboxed_show = (
        r'python -m genbench\.review\._run_sandboxed --task-dir "review-tasks/\$task_id" -- \\\n\s*genbench-cli'
    )
    assert re.search(sandboxed_show, task_code) and task_code.count("genbench-cli show-task") == 1
    install = next(
        step["run"] for step in jobs["task-code"]["steps"] if step.get("name", "").startswith("Install bub")
    )
    assert "trusted/.ci/install-bubblewrap" in install
    assert 'python trusted/.github/scripts/task_review_summary.py review >> "$GITHUB_STEP_SUMMARY"' in task_code


def test_the_checker_comes_from_the_base_branch():
    """Each job installs genbench from a checkout of the target branch; the pull request's checkout is data."""
    for name, job in review_jobs().items():
        checkouts = [step for step in job["steps"] if step.get("uses", "").startswith("actions/checkout@")]
        assert [step["with"]["path"] for step in checkouts] == ["trusted", "submission"], name
        assert checkouts[0]["with"]["ref"] == "${{ github.base_ref }}"
        assert "ref" not in checkouts[1]["with"] and checkouts[1]["with"]["fetch-depth"] == 0
        install = next(step["run"] for step in job["steps"] if step.get("name") == "Install genbench from the base "
                       "branch")  # fmt: skip
        assert re.search(r'pip install -c trusted/constraints.txt -e "\./trusted(\[lint\])?"', install), install
        assert "cache-dependency-path" in str(job["steps"]) and "submission/pyproject" not in str(job["steps"])


# What a trusted step may do with the pull request's checkout: read its git history, lint its files.
SUBMISSION_USES = re.compile(r"git -C submission diff |--repo submission |^\s*cd submission$", re.M)
# Ways of running the pull request's code or configuration.
RUNS_SUBMISSION = re.compile(
    r"pip install[^\n]*submission|PYTHONPATH|\bmake\b|\b(python|bash|sh|source)\s+\S*submission/|\./submission/"
)


def test_no_trusted_step_runs_the_pull_requests_code():
    for name, job in review_jobs().items():
        for step in job["steps"]:
            script = step.get("run", "")
            assert "working-directory" not in step, f"{name}/{step.get('name')}"
            assert not RUNS_SUBMISSION.search(script), f"{name}/{step.get('name')}: {script}"
            uses = len(SUBMISSION_USES.findall(script))
            mentions = script.count("submission") - script.count("--submission") - script.count(".submission.")
            assert mentions == uses, f"{name}/{step.get('name')}"
            if "cd submission" in script:  # only the linters, with the base branch's configuration
                commands = [line.strip() for line in script.splitlines()[1:] if line.strip()]
                assert commands and all(c.startswith("ruff ") and "--config ../trusted/" in c for c in commands)


def test_tasks_are_staged_blob_by_blob_never_with_git_archive():
    # git archive applies the task's .gitattributes (export-ignore hid files from the review: issue 31).
    for name, job in review_jobs().items():
        script = job_script(job)
        assert not re.search(r"\barchive\b", script), name
        staging = re.findall(r"python -m genbench\.authoring\.submission\._staging[^\n]*", script)
        assert staging == ["python -m genbench.authoring.submission._staging --repo submission --rev HEAD --to "
                           'review-tasks "$task_id"'], name  # fmt: skip


def test_the_static_job_runs_no_task_code():
    script = job_script(review_jobs()["static"])
    assert "show-task" not in script
    calls = re.findall(r"genbench-cli test-task[^\n]*", script)
    assert calls and all("--no-task-code" in call for call in calls)


def test_ci_job_runs_the_ci_entry_point_and_the_quality_and_type_checks():
    workflow = load(CI)
    test_job = workflow["jobs"]["test"]
    # The test job runs .ci/run (chromium for the browser test, the suite, the docs built strictly), not a subset.
    assert [step["run"] for step in test_job["steps"] if "run" in step] == [".ci/run"]
    ci_run = CI_RUN.read_text(encoding="utf-8").splitlines()
    assert ci_run[-2:] == ["make test", "make docs"]
    quality = "\n".join(step.get("run", "") for step in workflow["jobs"]["quality"]["steps"])
    assert "make check-quality" in quality and "make typecheck" in quality


def test_ci_entry_point_is_executable_and_looks_for_the_browsers_of_the_browser_test():
    from tests.leaderboard.test_browser import BROWSERS

    assert os.access(CI_RUN, os.X_OK)
    assert f"for name in {' '.join(BROWSERS)}; do" in CI_RUN.read_text(encoding="utf-8")


@pytest.fixture
def ci_checkout(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A copy of .ci/run in a checkout whose PATH holds stand-ins for make, apt-get, sudo and id, each logging its
    command line: ``(script, bin directory, log)``."""
    (tmp_path / "repo" / ".ci").mkdir(parents=True)
    script = tmp_path / "repo" / ".ci" / "run"
    shutil.copy2(CI_RUN, script)
    shutil.copy2(CI_RUN.with_name("install-bubblewrap"), script.with_name("install-bubblewrap"))
    bin_dir, log = tmp_path / "bin", tmp_path / "calls.log"
    bin_dir.mkdir()
    for tool in ("bash", "dirname", "env"):
        (bin_dir / tool).symlink_to(shutil.which(tool))
    stand_ins = {
        "make": f'echo "make $*" >> {log}',
        "apt-get": f'echo "apt-get $* DEBIAN_FRONTEND=${{DEBIAN_FRONTEND:-}}" >> {log}; exit ${{APT_STATUS:-0}}',
        "sudo": f'echo "sudo $1" >> {log}; shift; exec "$@"',
        "id": "echo 1001",
    }
    for name, body in stand_ins.items():
        (bin_dir / name).write_text(f"#!{shutil.which('bash')}\n{body}\n")
        (bin_dir / name).chmod(0o755)
    return script, bin_dir, log


def run_ci(script: Path, bin_dir: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(bin_dir / "bash"), str(script)],
        env={"PATH": str(bin_dir), **env},
        capture_output=True,
        text=True,
    )


def test_ci_entry_point_installs_chromium_with_sudo_when_no_browser_is_there(ci_checkout):
    script, bin_dir, log = ci_checkout
    done = run_ci(script, bin_dir)
    assert done.returncode == 0, done.stderr
    assert log.read_text().splitlines() == [
        "sudo -n",
        "apt-get update -qq DEBIAN_FRONTEND=",
        "sudo -n",
        "apt-get install -y -qq chromium DEBIAN_FRONTEND=noninteractive",
        "sudo -n",
        "apt-get update -qq DEBIAN_FRONTEND=",
        "sudo -n",
        "apt-get install -y -qq bubblewrap DEBIAN_FRONTEND=noninteractive",
        "make test",
        "make docs",
    ]


def test_ci_entry_point_keeps_the_runners_browser_and_survives_a_failed_install(ci_checkout):
    script, bin_dir, log = ci_checkout
    done = run_ci(script, bin_dir, APT_STATUS="100")
    assert done.returncode == 0 and "could not install chromium" in done.stderr
    assert "could not install bubblewrap; the sandbox tests will be skipped" in done.stderr
    assert log.read_text().splitlines()[-2:] == ["make test", "make docs"]
    log.unlink()
    (bin_dir / "google-chrome").symlink_to(bin_dir / "id")  # GitHub's runners have Google Chrome
    (bin_dir / "bwrap").symlink_to(bin_dir / "id")  # and bubblewrap, installed once
    assert run_ci(script, bin_dir).returncode == 0
    assert log.read_text().splitlines() == ["make test", "make docs"]


def test_ci_entry_point_runs_without_apt(ci_checkout):
    """No apt-get (another distribution, no root): the sandbox tests skip, saying so, and CI goes on."""
    script, bin_dir, log = ci_checkout
    (bin_dir / "apt-get").unlink()
    done = run_ci(script, bin_dir)
    assert done.returncode == 0, done.stderr
    assert "bubblewrap (bwrap) is missing and apt-get is not available" in done.stderr
    assert log.read_text().splitlines() == ["make test", "make docs"]


@pytest.mark.skipif(shutil.which("actionlint") is None, reason="actionlint is not installed (no PyPI package here)")
def test_actionlint(workflow_path: Path):
    process = subprocess.run(["actionlint", str(workflow_path)], capture_output=True, text=True)
    assert process.returncode == 0, process.stdout + process.stderr


# -- the review job's scripts, run here ------------------------------------------------------------------------


def review_step(name: str, job: str = "task-code") -> str:
    return next(step["run"] for step in review_jobs()[job]["steps"] if step.get("name") == name)


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
    # A stand-in for `python -m genbench.review._run_sandboxed ... -- COMMAND`: runs COMMAND (the real one is tested
    # in tests/review/test_sandbox.py).
    stand_in = (
        f"#!{shutil.which('bash')}\n"
        f'if [ "$1 $2" != "-m genbench.review._run_sandboxed" ]; then exec {sys.executable} "$@"; fi\n'
        'while [ "$#" -gt 0 ] && [ "$1" != -- ]; do shift; done; shift; exec "$@"\n'
    )
    (bin_dir / "python").write_text(stand_in)
    (bin_dir / "python").chmod(0o755)
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
    assert "::group::genbench-cli test-task -t good_task --submission" in process.stdout
    assert (tmp_path / "review" / "good_task" / "test.rc").read_text().strip() == "0"
    assert (tmp_path / "review" / "bad_task" / "test.rc").read_text().strip() == "1"
    assert "12 passed" in (tmp_path / "review" / "good_task" / "test.log").read_text()
    assert "Splits" in (tmp_path / "review" / "bad_task" / "show.txt").read_text()

    summary = tmp_path / "summary.md"
    env = {**fake_cli, "GITHUB_STEP_SUMMARY": str(summary)}
    script = review_step("Summary").replace("trusted/.github/scripts/", f"{SUMMARY_SCRIPT.parent}/")
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


# -- staging the pull request's tasks as data, on a real repository ----------------------------------------------


@pytest.fixture
def pull_request(tmp_path: Path) -> Path:
    """A workspace as the review jobs see it: ``submission/`` (the pull request: base ``main`` known as
    ``origin/main``; task ``edited`` changed, with a symbolic link inside, and task ``added``) and ``trusted/``
    (the base branch's checkout, with its own copy of ``edited``)."""
    from .submission_helpers import git, write_task

    submission = tmp_path / "submission"
    tasks = submission / "src" / "genbench" / "tasks"
    write_task(tasks / "edited")
    (submission / "README.md").write_text("readme\n")
    git(submission.parent, "init", "-q", "-b", "main", str(submission))
    git(submission, "add", "-A")
    git(submission, "commit", "-q", "-m", "base")
    git(submission, "update-ref", "refs/remotes/origin/main", "main")
    git(submission, "checkout", "-q", "-b", "pr")
    (tasks / "edited" / "doc.md").write_text("new documentation\n")
    (tasks / "edited" / "secret.jsonl").symlink_to("/etc/passwd")
    write_task(tasks / "added")
    git(submission, "add", "-A")
    git(submission, "commit", "-q", "-m", "pr")
    write_task(tmp_path / "trusted" / "src" / "genbench" / "tasks" / "edited")
    (tmp_path / "changed_tasks.txt").write_text("added\nedited\n")
    return tmp_path


def test_staging_copies_the_changed_tasks_out_of_git_as_data(pull_request: Path):
    from .submission_helpers import write_task

    # The workflow puts the trusted virtual environment first on PATH: here, this test's Python.
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    env = {**os.environ, "GITHUB_ENV": str(pull_request / "github_env"), "PATH": path}
    staged = pull_request / "review-tasks"
    for job in ("static", "task-code"):  # each on a runner of its own
        shutil.rmtree(staged, ignore_errors=True)
        write_task(pull_request / "trusted" / "src" / "genbench" / "tasks" / "edited")
        process = run_step(review_step("Stage the changed tasks as data", job), pull_request, env)
        assert process.returncode == 0, process.stderr
        assert sorted(p.name for p in staged.iterdir()) == ["added", "edited"]
        assert (staged / "edited" / "doc.md").read_text() == "new documentation\n"
        assert (staged / "edited" / "secret.jsonl").is_symlink()  # kept a link, so the task_files check fails it
        assert not (pull_request / "trusted" / "src" / "genbench" / "tasks" / "edited").exists()
        assert f"GENBENCH_TASKS_PATH={staged}" in (pull_request / "github_env").read_text()


def test_a_pull_request_changing_files_outside_the_tasks_fails(pull_request: Path):
    from .submission_helpers import git

    env = {**os.environ, "GITHUB_BASE_REF": "main"}
    script = review_step("Only task files change", "static")
    assert run_step(script, pull_request, env).returncode == 0
    (pull_request / "submission" / "README.md").write_text("changed\n")
    git(pull_request / "submission", "commit", "-q", "-am", "readme")
    process = run_step(script, pull_request, env)
    assert process.returncode == 1 and "README.md" in process.stdout
    # Paths are the pull request's text: no line of them is a workflow command.
    (pull_request / "submission" / "::error::approved").write_text("x\n")
    (pull_request / "submission" / "x ##[warning]y").write_text("x\n")
    git(pull_request / "submission", "add", "-A")
    git(pull_request / "submission", "commit", "-q", "-m", "names")
    lines = run_step(script, pull_request, env).stdout.splitlines()
    assert "  - ::error::approved" in lines and "  - x ##![warning]y" in lines
    assert [line for line in lines if line.lstrip().startswith("::") or "##[" in line] == [lines[0]]
