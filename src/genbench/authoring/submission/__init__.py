"""Submitting tasks (:func:`submit_task`) and finding the tasks a branch changes (:func:`changed_tasks`, the tasks the
pull-request review tests).

Everything here uses the standard library and the ``git`` command line only. See docs/review.md.
"""

from __future__ import annotations

from genbench.authoring.submission._changes import DEFAULT_TASKS_DIR, ChangedTasks, changed_tasks
from genbench.authoring.submission._errors import GitError, GitHubError, SubmissionError
from genbench.authoring.submission._git import RemoteRepo, parse_remote_url
from genbench.authoring.submission._github import DEFAULT_API_URL, GitHubClient, PullRequest, compare_url
from genbench.authoring.submission._submit import (
    DEFAULT_BASE,
    DEFAULT_UPSTREAM,
    SubmissionPlan,
    SubmissionResult,
    prepare_submission,
    pull_request_body,
    pull_request_title,
    submit_task,
)

__all__ = [
    "DEFAULT_API_URL",
    "DEFAULT_BASE",
    "DEFAULT_TASKS_DIR",
    "DEFAULT_UPSTREAM",
    "ChangedTasks",
    "GitError",
    "GitHubClient",
    "GitHubError",
    "PullRequest",
    "RemoteRepo",
    "SubmissionError",
    "SubmissionPlan",
    "SubmissionResult",
    "changed_tasks",
    "compare_url",
    "parse_remote_url",
    "prepare_submission",
    "pull_request_body",
    "pull_request_title",
    "submit_task",
]
