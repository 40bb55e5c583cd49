"""``genbench-cli submit-task`` and ``genbench.authoring.submission.submit_task`` end to end: real git, a fake GitHub
API."""

from __future__ import annotations

import re
import urllib.parse
from pathlib import Path

import pytest
from click.testing import CliRunner

from genbench.authoring.submission import SubmissionError, prepare_submission, pull_request_body, submit_task
from genbench.authoring.submission._github import API_VERSION
from genbench.cli import cli
from tests.task_roots import TaskRoots

from .submission_helpers import TASK_ID, FakeGitHub, FakeSuite, TaskRepo, git, write_task

PR_PATH = "/repos/GenBench/genbench_cbt/pulls"
TITLE = f"[Task Submission] Submitted Task (`{TASK_ID}`)"
REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def use_suite(monkeypatch: pytest.MonkeyPatch, fake_suite: FakeSuite) -> FakeSuite:
    """Make the CLI's validation suite the fake one (the CLI takes no suite argument)."""
    import genbench.authoring.submission._submit as submit_module

    monkeypatch.setattr(submit_module, "_default_run_tests", lambda: fake_suite)
    return fake_suite


def run_cli(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(cli, ["submit-task", *args], env=env)


def error_line(result) -> str:
    assert result.exit_code == 1, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("Error: ")]
    assert len(lines) == 1, result.output
    assert "Traceback" not in result.output
    return lines[0]


# -- refusals ---------------------------------------------------------------------------------------------------


def test_refuses_main_branch(task_repo: TaskRepo, use_suite: FakeSuite):
    task_repo.git("checkout", "-q", "main")
    write_task(task_repo.task_dir)  # untracked on main: the branch check comes first
    line = error_line(run_cli("-i", TASK_ID))
    assert "'main'" in line and f"git checkout -b {TASK_ID}" in line
    assert use_suite.calls == []


def test_refuses_master_branch(task_repo: TaskRepo, use_suite: FakeSuite):
    task_repo.git("checkout", "-q", "-b", "master")
    assert "'master'" in error_line(run_cli("-i", TASK_ID))


def test_refuses_detached_head(task_repo: TaskRepo, use_suite: FakeSuite):
    task_repo.git("checkout", "-q", "--detach")
    line = error_line(run_cli("-i", TASK_ID))
    assert "detached" in line and "git checkout -b" in line


def test_names_uncommitted_task_files(task_repo: TaskRepo, use_suite: FakeSuite):
    (task_repo.task_dir / "data" / "extra file.jsonl").write_text("{}\n")
    (task_repo.task_dir / "doc.md").write_text("# changed\n")
    (task_repo.root / "notes.txt").write_text("outside the task: not our business\n")
    line = error_line(run_cli("-i", TASK_ID))
    assert f"src/genbench/tasks/{TASK_ID}/data/extra file.jsonl (untracked)" in line
    assert f"src/genbench/tasks/{TASK_ID}/doc.md (modified)" in line
    assert "notes.txt" not in line
    assert f"git add src/genbench/tasks/{TASK_ID}" in line
    assert use_suite.calls == []


def test_names_staged_but_uncommitted_files(task_repo: TaskRepo, use_suite: FakeSuite):
    (task_repo.task_dir / "README.md").write_text("x\n")
    task_repo.git("add", "-A")
    assert "README.md (staged, not committed)" in error_line(run_cli("-i", TASK_ID))


def test_branch_without_upstream_tells_the_push_command(task_repo: TaskRepo, use_suite: FakeSuite):
    task_repo.git("checkout", "-q", "-b", "second_try")
    line = error_line(run_cli("-i", TASK_ID))
    assert "no upstream" in line and "`git push -u origin second_try`" in line


def test_unpushed_commits_are_refused(task_repo: TaskRepo, use_suite: FakeSuite):
    (task_repo.task_dir / "doc.md").write_text("# better doc\n")
    task_repo.commit_all("doc")
    (task_repo.task_dir / "doc.md").write_text("# even better doc\n")
    task_repo.commit_all("doc again")
    line = error_line(run_cli("-i", TASK_ID))
    assert "2 commits not pushed to origin/submitted_task" in line and "git push" in line


def test_failing_validation_suite_stops_the_submission(task_repo: TaskRepo, github_api: FakeGitHub):
    suite = FakeSuite(ok=False, summary="config.jsonnet: description is empty")
    with pytest.raises(SubmissionError, match="validation suite failed") as info:
        submit_task(TASK_ID, token="t0k3n", api_url=github_api.url, run_tests=suite)
    assert "description is empty" in str(info.value)
    assert suite.calls == [(TASK_ID, {"submission": True})]
    assert github_api.requests == []


def test_failing_suite_through_the_cli(task_repo: TaskRepo, use_suite: FakeSuite):
    use_suite.ok, use_suite.summary = False, "2 failed, 10 passed"
    result = run_cli("-i", TASK_ID)
    assert result.exit_code == 1
    assert "Error: The validation suite failed" in result.output and "2 failed, 10 passed" in result.output


def test_subtask_ids_and_unknown_tasks_are_refused(task_repo: TaskRepo, use_suite: FakeSuite):
    assert "whole task 'submitted_task'" in error_line(run_cli("-i", f"{TASK_ID}:sub"))
    assert "does not exist" in error_line(run_cli("-i", "no_such_task"))


def test_task_outside_a_git_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, task_roots: TaskRoots, fake_suite: FakeSuite
):
    tasks = tmp_path / "plain" / "tasks"
    write_task(tasks / TASK_ID)
    task_roots.use(tasks)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    with pytest.raises(SubmissionError, match="not inside a git repository"):
        submit_task(TASK_ID, run_tests=fake_suite)


def test_bad_api_url_is_refused_before_the_checks(task_repo: TaskRepo, fake_suite: FakeSuite):
    with pytest.raises(SubmissionError, match="must start with https://"):
        submit_task(TASK_ID, token="t0k3n", api_url="ftp://example.org", run_tests=fake_suite)
    assert fake_suite.calls == []


def test_bad_upstream_is_a_usage_error(task_repo: TaskRepo):
    result = run_cli("-i", TASK_ID, "--upstream", "not a repo")
    assert result.exit_code == 2 and "OWNER/REPO" in result.output


def test_fork_owner_needed_for_non_github_remotes(task_repo: TaskRepo, fake_suite: FakeSuite):
    task_repo.git("remote", "set-url", "origin", "https://alice:s3cret@git.example.org/repos/alice/x/y.git")
    with pytest.raises(SubmissionError, match="--fork-owner") as info:
        submit_task(TASK_ID, run_tests=fake_suite)
    assert "s3cret" not in str(info.value) and "https://git.example.org/repos/alice/x/y.git" in str(info.value)
    assert "fork_owner=" not in str(info.value)  # the CLI shows this message: no Python-API spelling in it
    result = submit_task(TASK_ID, run_tests=fake_suite, fork_owner="carol")
    assert result.plan.head == f"carol:{TASK_ID}"


# -- opening the pull request -------------------------------------------------------------------------------------


def test_opens_the_pull_request_with_a_token(task_repo: TaskRepo, use_suite: FakeSuite, github_api: FakeGitHub):
    pr_url = "https://github.com/GenBench/genbench_cbt/pull/7"
    github_api.answers[("POST", PR_PATH)] = (201, {"html_url": pr_url, "number": 7})
    result = run_cli("-i", TASK_ID, "--api-url", github_api.url, env={"GITHUB_TOKEN": "t0k3n"})
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == pr_url  # the URL alone on stdout; progress goes to stderr
    assert "Validation suite passed: 12 passed" in result.stderr
    assert use_suite.calls == [(TASK_ID, {"submission": True})]

    [request] = github_api.requests
    assert (request.method, request.path) == ("POST", PR_PATH)
    assert request.headers["authorization"] == "Bearer t0k3n"
    assert request.headers["accept"] == "application/vnd.github+json"
    assert request.headers["x-github-api-version"] == API_VERSION
    assert request.headers["content-type"].startswith("application/json")
    assert request.body["title"] == TITLE
    assert request.body["head"] == f"alice:{TASK_ID}"
    assert request.body["base"] == "main"
    assert request.body["body"] == pull_request_body("Submitted Task", TASK_ID)
    assert "- [ ] `doc.md` is written" in request.body["body"]
    assert f"genbench-cli test-task -t {TASK_ID} --submission" in request.body["body"]
    assert "t0k3n" not in result.output


def test_upstream_remote_and_options_choose_the_target(
    task_repo: TaskRepo, use_suite: FakeSuite, github_api: FakeGitHub
):
    task_repo.git("remote", "add", "upstream", "git@github.com:GenBench/genbench_cbt_next.git")
    path = "/repos/GenBench/genbench_cbt_next/pulls"
    github_api.answers[("POST", path)] = (201, {"html_url": "https://example.org/pr/1"})
    result = run_cli("-i", TASK_ID, "--api-url", github_api.url, "--token", "t0k3n", "--base", "dev")
    assert result.exit_code == 0, result.output
    assert github_api.requests[0].path == path and github_api.requests[0].body["base"] == "dev"

    github_api.answers[("POST", "/repos/someone/else/pulls")] = (201, {"html_url": "https://example.org/pr/2"})
    result = run_cli("-i", TASK_ID, "--api-url", github_api.url, "--token", "t0k3n", "--upstream", "someone/else")
    assert result.exit_code == 0 and result.stdout.strip() == "https://example.org/pr/2"


def test_an_upstream_remote_that_is_no_github_repository_is_said_to_be_ignored(
    task_repo: TaskRepo, use_suite: FakeSuite, github_api: FakeGitHub
):
    # Regression: an upstream remote on a local path fell back to GenBench/genbench_cbt without a word.
    task_repo.git("remote", "add", "upstream", str(task_repo.fork))
    result = run_cli("-i", TASK_ID, "--api-url", github_api.url)
    assert result.exit_code == 0, result.output
    assert (
        f"Note: the upstream remote ({task_repo.fork}) names no GitHub repository: the pull request goes to "
        "GenBench/genbench_cbt. Give --upstream OWNER/REPO for another." in result.stderr
    )
    assert result.stdout.startswith("https://github.com/GenBench/genbench_cbt/compare/")
    quiet = run_cli("-i", TASK_ID, "--api-url", github_api.url, "--upstream", "GenBench/genbench_cbt")
    assert quiet.exit_code == 0 and "names no GitHub repository" not in quiet.stderr


def test_remote_branch_name_is_the_head(task_repo: TaskRepo, fake_suite: FakeSuite):
    task_repo.git("checkout", "-q", "-b", "local_name")
    task_repo.git("push", "-q", "-u", "origin", "local_name:remote_name")
    assert prepare_submission(TASK_ID, run_tests=fake_suite).head == "alice:remote_name"


def test_repository_template_is_preferred(task_repo: TaskRepo, fake_suite: FakeSuite):
    template = task_repo.root / ".github" / "PULL_REQUEST_TEMPLATE" / "task_submission.md"
    template.parent.mkdir(parents=True)
    template.write_text("Checklist for <task_name> (<task_id>)\n- [ ] done\n")
    plan = prepare_submission(TASK_ID, run_tests=fake_suite)
    assert plan.body == f"Checklist for Submitted Task ({TASK_ID})\n- [ ] done\n"


def test_no_token_prints_the_compare_url(task_repo: TaskRepo, use_suite: FakeSuite, github_api: FakeGitHub):
    result = run_cli("-i", TASK_ID, "--api-url", github_api.url)
    assert result.exit_code == 0, result.output
    assert github_api.requests == []
    assert "No GitHub token" in result.stderr
    url = urllib.parse.urlsplit(result.stdout.strip())
    assert (url.scheme, url.netloc) == ("https", "github.com")
    assert url.path == f"/GenBench/genbench_cbt/compare/main...alice:{TASK_ID}"
    query = urllib.parse.parse_qs(url.query, strict_parsing=True)
    assert query == {
        "expand": ["1"],
        "title": [TITLE],
        "body": [pull_request_body("Submitted Task", TASK_ID)],
    }
    assert " " not in result.stdout.strip() and "`" not in url.query


def test_skip_tests(task_repo: TaskRepo, use_suite: FakeSuite):
    result = run_cli("-i", TASK_ID, "--skip-tests")
    assert result.exit_code == 0, result.output
    assert use_suite.calls == [] and "skipped" in result.stderr


@pytest.mark.parametrize(
    ("status", "document", "expected"),
    [
        (401, {"message": "Bad credentials"}, "(401 Bad credentials); the token is invalid or expired"),
        (404, {"message": "Not Found"}, "(404 Not Found); the repository does not exist there"),
        (
            422,
            {"message": "Validation Failed", "errors": [{"message": "A pull request already exists for alice:x."}]},
            "(422 Validation Failed: A pull request already exists for alice:x.)",
        ),
    ],
)
def test_api_errors_are_one_clear_line(
    task_repo: TaskRepo, use_suite: FakeSuite, github_api: FakeGitHub, status, document, expected
):
    github_api.answers[("POST", PR_PATH)] = (status, document)
    line = error_line(run_cli("-i", TASK_ID, "--api-url", github_api.url, "--token", "t0k3n"))
    assert line.startswith("Error: GitHub refused to open a pull request on GenBench/genbench_cbt")
    assert expected in line
    assert "t0k3n" not in line


def test_existing_pull_request_is_linked(task_repo: TaskRepo, use_suite: FakeSuite, github_api: FakeGitHub):
    errors = [{"resource": "PullRequest", "code": "custom", "message": "A pull request already exists for alice:b."}]
    github_api.answers[("POST", PR_PATH)] = (422, {"message": "Validation Failed", "errors": errors})
    lookup = f"{PR_PATH}?head=alice%3A{TASK_ID}&state=open"
    github_api.answers[("GET", lookup)] = (200, [{"html_url": "https://github.com/GenBench/genbench_cbt/pull/3"}])
    line = error_line(run_cli("-i", TASK_ID, "--api-url", github_api.url, "--token", "t0k3n"))
    assert "already exists" in line and line.endswith("It is https://github.com/GenBench/genbench_cbt/pull/3")


def test_unreachable_api(task_repo: TaskRepo, use_suite: FakeSuite, github_api: FakeGitHub):
    import socket

    with socket.socket() as sock:  # a port nothing listens on once this socket is closed
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    result = run_cli("-t", TASK_ID, "--api-url", f"http://127.0.0.1:{port}", "--token", "t0k3n")
    line = error_line(result)
    assert f"Could not reach the GitHub API at http://127.0.0.1:{port}" in line
    # The fallback: the link that opens the pull request in a browser, on a line of its own.
    assert "Or open the pull request in your browser (title and checklist filled in):" in result.output
    link = result.output.strip().splitlines()[-1]
    assert link.startswith("https://github.com/GenBench/genbench_cbt/compare/main...") and "title=" in link


def test_a_refused_token_also_gets_the_fallback_link(
    task_repo: TaskRepo, use_suite: FakeSuite, github_api: FakeGitHub
):
    github_api.answers[("POST", "/repos/GenBench/genbench_cbt/pulls")] = (401, {"message": "Bad credentials"})
    result = run_cli("-t", TASK_ID, "--api-url", github_api.url, "--token", "t0k3n")
    assert "token is invalid or expired" in error_line(result)
    assert result.output.strip().splitlines()[-1].startswith("https://github.com/GenBench/genbench_cbt/compare/")


def test_submit_task_help():
    result = CliRunner().invoke(cli, ["submit-task", "--help"])
    assert result.exit_code == 0
    for option in ("--task", "--upstream", "--base", "--token", "GITHUB_TOKEN", "--api-url", "--skip-tests"):
        assert option in result.output


def test_packaged_template_matches_the_repository_template():
    packaged = REPO_ROOT / "src" / "genbench" / "authoring" / "submission" / "task_submission.md"
    shipped = REPO_ROOT / ".github" / "PULL_REQUEST_TEMPLATE" / "task_submission.md"
    assert packaged.read_text(encoding="utf-8") == shipped.read_text(encoding="utf-8")


def test_clean_repo_fixture_sanity(task_repo: TaskRepo):
    assert git(task_repo.root, "status", "--porcelain") == ""


# -- with the real validation suite (genbench.review.run_task_tests, in a subprocess) ------------------------------


def test_real_validation_suite_then_pull_request(task_repo: TaskRepo, github_api: FakeGitHub):
    github_api.answers[("POST", PR_PATH)] = (201, {"html_url": "https://github.com/GenBench/genbench_cbt/pull/9"})
    result = run_cli("-i", TASK_ID, "--api-url", github_api.url, env={"GITHUB_TOKEN": "t0k3n"})
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "https://github.com/GenBench/genbench_cbt/pull/9"
    assert re.search(r"Validation suite passed: \d+ checks: \d+ passed", result.stderr)


def test_real_validation_suite_failure_stops(task_repo: TaskRepo, github_api: FakeGitHub):
    (task_repo.task_dir / "doc.md").write_text("# Submitted Task\n\nTODO\n")
    task_repo.commit_all("short doc")
    task_repo.git("push", "-q")
    result = run_cli("-i", TASK_ID, "--api-url", github_api.url, env={"GITHUB_TOKEN": "t0k3n"})
    assert result.exit_code == 1
    assert "Error: The validation suite failed for task 'submitted_task'" in result.output
    assert "FAILED submitted_task / doc:" in result.output and "doc.md has only" in result.output
    assert github_api.requests == []
