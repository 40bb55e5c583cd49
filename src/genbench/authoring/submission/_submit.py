"""Submitting a task: check the git state, run the validation suite, open the pull request (``submit-task``).

:func:`submit_task` reads the repository and never changes it; it stops at the first check that fails with a
:class:`SubmissionError` saying which command to run. The checks and the pull request are described in
docs/review.md#genbench-cli-submit-task.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import genbench.authoring.submission._git as git
from genbench._registry.directories import get_task_dir
from genbench.authoring.submission._errors import GitError, GitHubError, SubmissionError
from genbench.authoring.submission._github import DEFAULT_API_URL, DEFAULT_WEB_URL, GitHubClient, compare_url
from genbench.review import run_task_tests

DEFAULT_UPSTREAM = "GenBench/genbench_cbt"
DEFAULT_BASE = "main"
PROTECTED_BRANCHES = frozenset({"main", "master"})
TEMPLATE_PATH = Path(".github") / "PULL_REQUEST_TEMPLATE" / "task_submission.md"
_SLUG = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
_MAX_LISTED_FILES = 10
_CREDENTIALS = re.compile(r"://[^/@]+@")  # user:token@ in a remote URL: never printed

RunTests = Callable[..., Any]


@dataclass(frozen=True)
class SubmissionPlan:
    """Everything known about a submission once the checks have passed, before GitHub is called.

    Attributes:
        task_id: The task's id.
        task_name: The task's ``name`` from its config.
        task_dir: The task's directory.
        repo_root: Top-level directory of the git working tree holding the task.
        branch: The local branch being submitted.
        remote: The remote the branch is pushed to (normally ``origin``, the fork).
        remote_branch: The branch's name on that remote.
        fork_owner: GitHub owner of the fork.
        upstream: ``OWNER/REPO`` the pull request goes to.
        base: Branch of ``upstream`` to merge into.
        title: Title of the pull request.
        body: Description of the pull request (the submission checklist).
        tests_summary: Summary of the validation suite's run, or ``None`` when it was skipped.
    """

    task_id: str
    task_name: str
    task_dir: Path
    repo_root: Path
    branch: str
    remote: str
    remote_branch: str
    fork_owner: str
    upstream: str
    base: str
    title: str
    body: str
    tests_summary: str | None

    @property
    def head(self) -> str:
        """``FORK_OWNER:BRANCH``, the head of the pull request."""
        return f"{self.fork_owner}:{self.remote_branch}"

    def compare_url(self, web_url: str = DEFAULT_WEB_URL) -> str:
        """GitHub's page for opening this pull request, with title and body filled in."""
        return compare_url(
            self.upstream, base=self.base, head=self.head, title=self.title, body=self.body, web_url=web_url
        )


@dataclass(frozen=True)
class SubmissionResult:
    """The outcome of :func:`submit_task`.

    Attributes:
        plan: What was submitted.
        pull_request_url: URL of the opened pull request, or ``None`` when no token was given.
        compare_url: URL that opens the pull request in a browser (printed when no token was given).
    """

    plan: SubmissionPlan
    pull_request_url: str | None
    compare_url: str

    @property
    def opened(self) -> bool:
        """Whether the pull request was opened through the API."""
        return self.pull_request_url is not None


def pull_request_title(task_name: str, task_id: str) -> str:
    """The title of a task submission's pull request.

    >>> pull_request_title("My Awesome Task", "my_awesome_task")
    '[Task Submission] My Awesome Task (`my_awesome_task`)'
    """
    return f"[Task Submission] {task_name} (`{task_id}`)"


def pull_request_body(task_name: str, task_id: str, repo_root: str | Path | None = None) -> str:
    """The submission checklist, with the task's name and id filled in.

    Read from ``.github/PULL_REQUEST_TEMPLATE/task_submission.md`` of ``repo_root`` when it has one, else from
    the copy shipped inside the package.

    >>> "genbench-cli test-task -t my_task --submission" in pull_request_body("My Task", "my_task")
    True
    """
    template = None
    if repo_root is not None and (Path(repo_root) / TEMPLATE_PATH).is_file():
        template = (Path(repo_root) / TEMPLATE_PATH).read_text(encoding="utf-8")
    if template is None:
        template = (
            resources.files("genbench.authoring.submission").joinpath("task_submission.md").read_text(encoding="utf-8")
        )
    return template.replace("<task_id>", task_id).replace("<task_name>", task_name)


def _notify(on_progress: Callable[[str], None] | None, message: str) -> None:
    if on_progress is not None:
        on_progress(message)


def _check_branch(repo: Path, task_id: str, base: str) -> str:
    branch = git.current_branch(repo)
    create = (
        f"create a branch for your task and push it: `git checkout -b {task_id}`, then `git push -u origin {task_id}`"
    )
    if branch is None:
        raise SubmissionError(f"HEAD is detached (not on a branch) in {repo}: {create}.")
    if branch in PROTECTED_BRANCHES or branch == base:
        raise SubmissionError(f"You are on branch {branch!r}, which is not for submissions: {create}.")
    return branch


def _check_committed(repo: Path, task_dir: Path, task_id: str) -> None:
    rel = task_dir.resolve().relative_to(repo.resolve()).as_posix()
    pending = git.uncommitted_files(repo, rel)
    if not pending:
        return
    listed = ", ".join(f"{f.path} ({f.state})" for f in pending[:_MAX_LISTED_FILES])
    if len(pending) > _MAX_LISTED_FILES:
        listed += f" and {len(pending) - _MAX_LISTED_FILES} more"
    raise SubmissionError(
        f"Task files are not committed: {listed}. Commit them, then push: `git add {rel}`, "
        f'`git commit -m "Add {task_id} task"`, `git push`.'
    )


def _check_pushed(repo: Path, branch: str) -> git.Upstream:
    upstream = git.upstream_of(repo, branch)
    push = f"`git push -u origin {branch}`"
    if upstream is None:
        raise SubmissionError(f"Branch {branch!r} has no upstream branch (it was never pushed): push it with {push}.")
    if not git.ref_exists(repo, upstream.ref):
        raise SubmissionError(
            f"Branch {branch!r} follows {upstream.short}, which does not exist (not pushed yet?): push it with {push}."
        )
    ahead, _ = git.ahead_behind(repo, upstream.ref)
    if ahead:
        commits = "commit" if ahead == 1 else "commits"
        raise SubmissionError(
            f"Branch {branch!r} has {ahead} {commits} not pushed to {upstream.short}: run `git push` first."
        )
    return upstream


def _fork_owner(repo: Path, remote: str, fork_owner: str | None) -> str:
    if fork_owner:
        return fork_owner
    url = git.remote_url(repo, remote)
    parsed = git.parse_remote_url(url) if url else None
    if parsed is None:
        raise SubmissionError(
            f"Cannot tell the GitHub owner of your fork from the URL of remote {remote!r} "
            f"({_CREDENTIALS.sub('://', url) if url else 'no URL'}): "
            "pass it with --fork-owner OWNER."
        )
    return parsed.owner


def default_upstream(repo: str | Path) -> str:
    """``OWNER/REPO`` of the ``upstream`` git remote when it names one, else ``GenBench/genbench_cbt``."""
    url = git.remote_url(repo, "upstream")
    parsed = git.parse_remote_url(url) if url else None
    return parsed.slug if parsed is not None else DEFAULT_UPSTREAM


def upstream_fallback_note(repo: str | Path) -> str | None:
    """Why the pull request goes to ``GenBench/genbench_cbt`` although an ``upstream`` remote exists (its URL names
    no GitHub repository: a local path, a ``file://`` URL), or None when there is nothing to say."""
    url = git.remote_url(repo, "upstream")
    if not url or git.parse_remote_url(url) is not None:
        return None
    shown = _CREDENTIALS.sub("://", url)
    return (
        f"Note: the upstream remote ({shown}) names no GitHub repository: the pull request goes to "
        f"{DEFAULT_UPSTREAM}. Give --upstream OWNER/REPO for another."
    )


def check_upstream_slug(upstream: str) -> str:
    """``upstream`` when it has the ``OWNER/REPO`` form.

    Raises:
        ValueError: it does not.
    """
    if not _SLUG.match(upstream):
        raise ValueError(f"expected OWNER/REPO (e.g. {DEFAULT_UPSTREAM}), got {upstream!r}.")
    return upstream


def _call_or_get(report: Any, *names: str) -> str | None:
    for name in names:
        value = getattr(report, name, None)
        if callable(value):
            value = value()
        if value is not None:
            return str(value).strip()
    return None


def _test_outcome(report: Any) -> tuple[bool, str, str]:
    """Whether a validation report passed, its one-line summary, and its full text.

    Reads :class:`genbench.review.TaskTestReport` (``ok``, ``summary_line()``, ``format_text()``), and also any
    report with ``ok`` or ``passed`` and a ``summary``.
    """
    passed = getattr(report, "ok", None)
    if passed is None:
        passed = getattr(report, "passed", None)
    if passed is None:
        raise SubmissionError(f"The validation suite returned {type(report).__name__}, which has no ok/passed flag.")
    short = _call_or_get(report, "summary_line", "summary") or ""
    full = _call_or_get(report, "format_text") or short
    return bool(passed), short, full


def _default_run_tests() -> RunTests:
    return run_task_tests


def _run_validation(task_id: str, run_tests: RunTests | None) -> str:
    if run_tests is None:
        run_tests = _default_run_tests()
    passed, summary, details = _test_outcome(run_tests(task_id, submission=True))
    if not passed:
        raise SubmissionError(
            f"The validation suite failed for task {task_id!r}, so nothing was submitted:\n{details}\n"
            f"Fix the problems (details: `genbench-cli test-task -t {task_id} --submission`), commit and push, "
            "then run submit-task again."
        )
    return summary


def prepare_submission(
    task_id: str,
    *,
    upstream: str | None = None,
    base: str = DEFAULT_BASE,
    fork_owner: str | None = None,
    skip_tests: bool = False,
    run_tests: RunTests | None = None,
    on_progress: Callable[[str], None] | None = None,
) -> SubmissionPlan:
    """Run every check of a submission and work out its pull request, without calling GitHub.

    Args:
        task_id: Id of the task to submit (a whole task, not ``id:subtask``).
        upstream: ``OWNER/REPO`` to open the pull request on; default: the ``upstream`` git remote, else
            ``GenBench/genbench_cbt``.
        base: Branch of ``upstream`` to merge into.
        fork_owner: GitHub owner of the fork; default: read from the URL of the remote the branch is pushed to.
        skip_tests: Do not run the validation suite (the review workflow still runs it).
        run_tests: The validation suite, called as ``run_tests(task_id, submission=True)`` and returning a report
            with ``ok`` (or ``passed``) and ``summary``; default: ``genbench.review.run_task_tests``.
        on_progress: Called with a line of text before each step.

    Returns:
        The plan of the pull request.

    Raises:
        SubmissionError: a check failed; the message names the problem and the command that fixes it.
        TaskNotFoundError: no task has this id.
        ConfigError: the task's config is invalid.
    """
    from genbench._registry.task_configs import load_config

    if ":" in task_id:
        raise SubmissionError(f"Submit the whole task {task_id.split(':')[0]!r}, not the subtask {task_id!r}.")
    if upstream is not None:
        try:
            check_upstream_slug(upstream)
        except ValueError as exc:
            raise SubmissionError(f"Invalid upstream repository: {exc}") from None
    task_dir = get_task_dir(task_id)
    try:
        repo = git.repo_root(task_dir)
    except GitError:
        raise SubmissionError(
            f"Task {task_id!r} is in {task_dir}, which is not inside a git repository: submit from a clone of "
            f"your fork of {upstream or DEFAULT_UPSTREAM} with genbench installed from it (`pip install -e .`)."
        ) from None

    _notify(on_progress, f"Checking the git state of {task_dir} ...")
    branch = _check_branch(repo, task_id, base)
    _check_committed(repo, task_dir, task_id)
    tracking = _check_pushed(repo, branch)
    owner = _fork_owner(repo, tracking.remote, fork_owner)
    target = upstream or default_upstream(repo)
    note = None if upstream else upstream_fallback_note(repo)
    if note is not None:
        _notify(on_progress, note)
    task_name = load_config(task_id).name

    tests_summary = None
    if not skip_tests:
        _notify(on_progress, f"Running the validation suite on {task_id!r} ...")
        tests_summary = _run_validation(task_id, run_tests)

    return SubmissionPlan(
        task_id=task_id,
        task_name=task_name,
        task_dir=task_dir,
        repo_root=repo,
        branch=branch,
        remote=tracking.remote,
        remote_branch=tracking.branch or branch,
        fork_owner=owner,
        upstream=target,
        base=base,
        title=pull_request_title(task_name, task_id),
        body=pull_request_body(task_name, task_id, repo),
        tests_summary=tests_summary,
    )


def submit_task(
    task_id: str,
    *,
    token: str | None = None,
    upstream: str | None = None,
    base: str = DEFAULT_BASE,
    api_url: str = DEFAULT_API_URL,
    fork_owner: str | None = None,
    skip_tests: bool = False,
    run_tests: RunTests | None = None,
    on_progress: Callable[[str], None] | None = None,
) -> SubmissionResult:
    """Check a task's branch, run its validation suite and open its pull request.

    With ``token``, the pull request is opened through the GitHub API at ``api_url``; without, nothing is sent
    and :attr:`SubmissionResult.compare_url` opens it in a browser with the title and checklist filled in. The
    checks are those of :func:`prepare_submission`; an invalid ``api_url`` is refused before any of them.

    Args:
        task_id: Id of the task to submit.
        token: GitHub token; ``None`` or empty: only the compare URL is made.
        upstream: ``OWNER/REPO`` to open the pull request on.
        base: Branch of ``upstream`` to merge into.
        api_url: Base URL of the GitHub API.
        fork_owner: GitHub owner of the fork.
        skip_tests: Do not run the validation suite.
        run_tests: The validation suite (default ``genbench.review.run_task_tests``).
        on_progress: Called with a line of text before each step.

    Returns:
        The plan, and the pull request's URL when it was opened.

    Raises:
        SubmissionError: a check failed, or GitHub refused (:class:`GitHubError`).
    """
    client = None
    if token:
        try:
            client = GitHubClient(token, api_url=api_url)
        except ValueError as exc:
            raise SubmissionError(str(exc)) from None
    plan = prepare_submission(
        task_id,
        upstream=upstream,
        base=base,
        fork_owner=fork_owner,
        skip_tests=skip_tests,
        run_tests=run_tests,
        on_progress=on_progress,
    )
    url = plan.compare_url()
    if client is None:
        return SubmissionResult(plan=plan, pull_request_url=None, compare_url=url)
    _notify(on_progress, f"Opening the pull request {plan.head} -> {plan.upstream}:{plan.base} ...")
    try:
        pull_request = client.create_pull_request(
            plan.upstream, title=plan.title, head=plan.head, base=plan.base, body=plan.body
        )
    except GitHubError as exc:
        if exc.status is not None and exc.status != 401 and exc.status < 500:
            raise  # GitHub answered about this pull request (e.g. it exists): the message says what to do
        # The API could not be reached, refused the token or failed: the branch is pushed, so the browser can open
        # the pull request instead.
        raise GitHubError(
            f"{exc}\nOr open the pull request in your browser (title and checklist filled in):\n{url}",
            status=exc.status,
        ) from None
    return SubmissionResult(plan=plan, pull_request_url=pull_request.url, compare_url=url)
