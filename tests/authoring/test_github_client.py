"""``genbench.authoring.submission._github``: the REST client against a loopback fake API, and compare URLs."""

from __future__ import annotations

import urllib.parse

import pytest

from genbench.authoring.submission import GitHubClient, GitHubError, PullRequest, compare_url

from .submission_helpers import FakeGitHub

PR_PATH = "/repos/GenBench/genbench_cbt/pulls"


def create(client: GitHubClient) -> PullRequest:
    return client.create_pull_request("GenBench/genbench_cbt", title="T", head="alice:b", base="main", body="B")


def test_created(github_api: FakeGitHub):
    github_api.answers[("POST", PR_PATH)] = (201, {"html_url": "https://github.com/x/pull/1", "number": 1})
    assert create(GitHubClient("tok", api_url=github_api.url + "/")) == PullRequest("https://github.com/x/pull/1", 1)
    [request] = github_api.requests
    assert request.body == {
        "title": "T",
        "head": "alice:b",
        "base": "main",
        "body": "B",
        "maintainer_can_modify": True,
    }
    assert request.headers["user-agent"].startswith("genbench")


def test_redirects_are_not_followed(github_api: FakeGitHub):
    github_api.answers[("POST", PR_PATH)] = (301, {"message": "Moved"}, {"Location": github_api.url + "/elsewhere"})
    with pytest.raises(GitHubError, match="redirect to .*/elsewhere") as info:
        create(GitHubClient("tok", api_url=github_api.url))
    assert info.value.status == 301
    assert [r.path for r in github_api.requests] == [PR_PATH]  # the token went nowhere else


def test_answers_that_are_not_pull_requests(github_api: FakeGitHub):
    client = GitHubClient("tok", api_url=github_api.url)
    github_api.answers[("POST", PR_PATH)] = (201, b"<html>proxy login</html>")
    with pytest.raises(GitHubError, match="other than JSON"):
        create(client)
    github_api.answers[("POST", PR_PATH)] = (201, {"id": 3})
    with pytest.raises(GitHubError, match="no html_url"):
        create(client)
    github_api.answers[("POST", PR_PATH)] = (500, b"oops")
    with pytest.raises(GitHubError, match=r"\(500 oops\); unexpected answer") as info:
        create(client)
    assert info.value.status == 500


def test_find_open_pull_request(github_api: FakeGitHub):
    client = GitHubClient("tok", api_url=github_api.url)
    github_api.answers[("GET", f"{PR_PATH}?head=alice%3Ab&state=open")] = (200, [])
    assert client.find_open_pull_request("GenBench/genbench_cbt", "alice:b") is None


def test_client_arguments():
    with pytest.raises(ValueError, match="token"):
        GitHubClient("")
    with pytest.raises(ValueError, match="https://"):
        GitHubClient("tok", api_url="file:///etc/passwd")
    assert "tok" not in repr(GitHubClient("tok"))


def test_compare_url_encoding():
    url = compare_url(
        "GenBench/genbench_cbt", base="main", head="alice:feature/my task#1", title="A & B (`x`)", body="- [ ] a\n#b"
    )
    parts = urllib.parse.urlsplit(url)
    assert parts.path == "/GenBench/genbench_cbt/compare/main...alice:feature/my%20task%231"
    assert urllib.parse.parse_qs(parts.query) == {"expand": ["1"], "title": ["A & B (`x`)"], "body": ["- [ ] a\n#b"]}
    assert parts.fragment == ""
