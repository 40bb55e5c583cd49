"""``genbench-cli submit-task``: check a task's branch, run its validation suite, open its pull request."""

from __future__ import annotations

import click

from genbench.authoring.submission._github import DEFAULT_API_URL
from genbench.authoring.submission._submit import DEFAULT_BASE, DEFAULT_UPSTREAM, check_upstream_slug
from genbench.authoring.submission._submit import submit_task as run_submission
from genbench.cli._output import note
from genbench.cli.params import task_option


def _check_upstream(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    try:
        return check_upstream_slug(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


@click.command("submit-task")
@task_option(help="Id of the task to submit.")
@click.option(
    "--upstream",
    metavar="OWNER/REPO",
    callback=_check_upstream,
    help=f"Repository to open the pull request on. Default: the 'upstream' git remote, else {DEFAULT_UPSTREAM}.",
)
@click.option(
    "--base", default=DEFAULT_BASE, show_default=True, help="Branch of the upstream repository to merge into."
)
@click.option(
    "--token",
    envvar="GITHUB_TOKEN",
    show_envvar=True,
    metavar="TOKEN",
    help="GitHub token that may open pull requests (prefer the environment variable). "
    "Without one, a link that opens the pull request in the browser is printed.",
)
@click.option("--api-url", default=DEFAULT_API_URL, show_default=True, metavar="URL", help="GitHub API base URL.")
@click.option(
    "--fork-owner",
    metavar="OWNER",
    help="GitHub owner of your fork. Default: read from the URL of the remote your branch is pushed to.",
)
@click.option(
    "--skip-tests", is_flag=True, help="Do not run the validation suite first (the review workflow still runs it)."
)
def submit_task(
    task_id: str,
    upstream: str | None,
    base: str,
    token: str | None,
    api_url: str,
    fork_owner: str | None,
    skip_tests: bool,
) -> None:
    """Submit a task for review: open its pull request on the GenBench repository.

    Refuses to go on when you are on main/master or a detached HEAD, when files of the task are not committed,
    when the branch is not pushed to your fork, or when the task's validation suite fails. Then opens the pull
    request through the GitHub API (with a token) or prints a link that opens it, filled in, in the browser.

    Example: GITHUB_TOKEN=... genbench-cli submit-task -t my_awesome_task
    """

    def progress(message: str) -> None:
        note(message, err=True)

    result = run_submission(
        task_id,
        token=token or None,
        upstream=upstream,
        base=base,
        api_url=api_url,
        fork_owner=fork_owner,
        skip_tests=skip_tests,
        on_progress=progress,
    )
    plan = result.plan
    if plan.tests_summary is not None:
        note(f"Validation suite passed: {plan.tests_summary}", err=True)
    else:
        note("Validation suite skipped (--skip-tests): the review workflow will run it.", err=True)
    if result.opened:
        note(f"Opened the pull request {plan.head} -> {plan.upstream}:{plan.base}:", err=True)
        click.echo(result.pull_request_url)
    else:
        click.echo(
            "No GitHub token (--token or GITHUB_TOKEN), so no pull request was opened. "
            "Open this link to open it, with the title and checklist filled in:",
            err=True,
        )
        click.echo(result.compare_url)
