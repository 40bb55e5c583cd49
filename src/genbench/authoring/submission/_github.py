"""A minimal GitHub REST client (standard library only) for opening the pull request of a task submission.

Every failure becomes a :class:`GitHubError` whose message says what GitHub answered and what to do; the token
never appears in a message. Redirects are not followed, so the token is only ever sent to ``api_url``.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any

from genbench.authoring.submission._errors import GitHubError

DEFAULT_API_URL = "https://api.github.com"
DEFAULT_WEB_URL = "https://github.com"
API_VERSION = "2022-11-28"


@dataclass(frozen=True)
class PullRequest:
    """A pull request as GitHub describes it.

    Attributes:
        url: The page of the pull request (``html_url``).
        number: Its number in the repository.
    """

    url: str
    number: int | None = None


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        return None  # the 3xx answer is then raised as an HTTPError and reported


def _pr_path(repo: str) -> str:
    owner, _, name = repo.partition("/")
    return f"/repos/{urllib.parse.quote(owner, safe='')}/{urllib.parse.quote(name, safe='')}/pulls"


class GitHubClient:
    """Calls the GitHub REST API with a token.

    Args:
        token: A GitHub token allowed to open pull requests on the target repository (a classic token with the
            ``public_repo`` scope, or a fine-grained token with "Pull requests: read and write").
        api_url: Base URL of the API (``https://api.github.com``; GitHub Enterprise: ``https://HOST/api/v3``).
        timeout: Seconds to wait for each answer.

    Raises:
        ValueError: ``token`` is empty or ``api_url`` is not an http(s) URL.
    """

    def __init__(self, token: str, api_url: str = DEFAULT_API_URL, timeout: float = 30.0):
        if not token:
            raise ValueError("A GitHub token is required.")
        if urllib.parse.urlsplit(api_url).scheme not in ("http", "https"):
            raise ValueError(f"The GitHub API URL must start with https:// (or http://), got {api_url!r}.")
        self.api_url = api_url.rstrip("/")
        self.timeout = timeout
        self._token = token
        self._opener = urllib.request.build_opener(_NoRedirect)

    def __repr__(self) -> str:
        return f"GitHubClient(api_url={self.api_url!r})"

    def create_pull_request(
        self, repo: str, *, title: str, head: str, base: str, body: str, maintainer_can_modify: bool = True
    ) -> PullRequest:
        """Open a pull request (``POST /repos/{repo}/pulls``).

        Args:
            repo: ``OWNER/REPO`` to open the pull request on.
            title: Its title.
            head: ``FORK_OWNER:BRANCH`` holding the changes.
            base: Branch of ``repo`` to merge into.
            body: Its description (Markdown).
            maintainer_can_modify: Let the maintainers of ``repo`` push to the branch.

        Returns:
            The new pull request.

        Raises:
            GitHubError: GitHub refused (bad token, no such repository, a pull request for ``head`` already
                exists, ...) or could not be reached.
        """
        payload = {
            "title": title,
            "head": head,
            "base": base,
            "body": body,
            "maintainer_can_modify": maintainer_can_modify,
        }
        try:
            answer = self._request("POST", _pr_path(repo), payload=payload, what=f"open a pull request on {repo}")
        except GitHubError as exc:
            if exc.status == 422 and "already exists" in str(exc):
                existing = self._find_existing(repo, head)
                if existing is not None:
                    raise GitHubError(f"{exc} It is {existing.url}", status=422) from exc
            raise
        return self._pull_request(answer)

    def find_open_pull_request(self, repo: str, head: str) -> PullRequest | None:
        """The open pull request of ``head`` (``OWNER:BRANCH``) on ``repo``, if there is one.

        Raises:
            GitHubError: GitHub refused or could not be reached.
        """
        query = urllib.parse.urlencode({"head": head, "state": "open"})
        answer = self._request("GET", f"{_pr_path(repo)}?{query}", what=f"list the pull requests of {repo}")
        if isinstance(answer, list) and answer:
            return self._pull_request(answer[0])
        return None

    def _find_existing(self, repo: str, head: str) -> PullRequest | None:
        try:
            return self.find_open_pull_request(repo, head)
        except GitHubError:
            return None  # only a hint for the 422 message; the 422 itself is what gets reported

    def _pull_request(self, answer: Any) -> PullRequest:
        if not isinstance(answer, dict) or not isinstance(answer.get("html_url"), str):
            raise GitHubError(f"Unexpected answer from {self.api_url}: no html_url in {str(answer)[:200]!r}.")
        number = answer.get("number")
        return PullRequest(url=answer["html_url"], number=number if isinstance(number, int) else None)

    def _request(self, method: str, path: str, *, payload: dict[str, Any] | None = None, what: str) -> Any:
        data = None if payload is None else json.dumps(payload).encode("utf-8")
        request = urllib.request.Request(f"{self.api_url}{path}", data=data, method=method)
        request.add_header("Authorization", f"Bearer {self._token}")
        request.add_header("Accept", "application/vnd.github+json")
        request.add_header("X-GitHub-Api-Version", API_VERSION)
        request.add_header("User-Agent", "genbench-submit-task")
        if data is not None:
            request.add_header("Content-Type", "application/json; charset=utf-8")
        try:
            with self._opener.open(request, timeout=self.timeout) as response:
                raw = response.read()
        except urllib.error.HTTPError as exc:
            raise _http_error(exc, what=what, api_url=self.api_url) from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise GitHubError(f"Could not reach the GitHub API at {self.api_url} to {what}: {reason}.") from None
        try:
            return json.loads(raw.decode("utf-8")) if raw else None
        except ValueError:
            raise GitHubError(f"The GitHub API at {self.api_url} answered with something other than JSON.") from None


def _error_detail(body: bytes) -> str:
    """GitHub's ``message`` and the messages of its ``errors`` list, or the start of a non-JSON body."""
    try:
        document = json.loads(body.decode("utf-8"))
    except ValueError:
        return body.decode("utf-8", "replace").strip()[:200]
    if not isinstance(document, dict):
        return str(document)[:200]
    parts = [str(document.get("message", "")).strip()]
    for error in document.get("errors") or []:
        if isinstance(error, dict):
            text = error.get("message") or " ".join(str(error.get(k, "")) for k in ("resource", "field", "code"))
            parts.append(str(text).strip())
        else:
            parts.append(str(error).strip())
    return ": ".join(part for part in parts if part)


def _http_error(exc: urllib.error.HTTPError, *, what: str, api_url: str) -> GitHubError:
    detail = _error_detail(exc.read() or b"") or exc.reason or "no details"
    status = exc.code
    if status == 401:
        hint = (
            "the token is invalid or expired: create one (classic, scope public_repo) and pass it with --token "
            "or GITHUB_TOKEN, or leave the token out to get a link that opens the pull request in the browser."
        )
    elif status == 403:
        hint = "the token may lack permission to open pull requests there, or the API rate limit was hit."
    elif status == 404:
        hint = "the repository does not exist there, or the token cannot see it."
    elif status == 422 and "already exists" in detail:
        hint = "push new commits to the branch to update that pull request."
    elif status == 422:
        hint = "GitHub could not open it (is the branch pushed to your fork, and does the base branch exist?)."
    elif 300 <= status < 400:
        hint = f"GitHub answered with a redirect to {exc.headers.get('Location', '?')} (repository moved?)."
    else:
        hint = f"unexpected answer from {api_url}."
    return GitHubError(f"GitHub refused to {what} ({status} {detail}); {hint}", status=status)


def compare_url(repo: str, *, base: str, head: str, title: str, body: str, web_url: str = DEFAULT_WEB_URL) -> str:
    """The URL of GitHub's "open a pull request" page, with the title and body already filled in.

    Args:
        repo: ``OWNER/REPO`` to open the pull request on.
        base: Branch of ``repo`` to merge into.
        head: ``FORK_OWNER:BRANCH`` holding the changes.
        title: The title to prefill.
        body: The description to prefill.
        web_url: Base URL of the GitHub web site.

    >>> compare_url("GenBench/genbench_cbt", base="main", head="alice:my_task", title="T", body="B")
    'https://github.com/GenBench/genbench_cbt/compare/main...alice:my_task?expand=1&title=T&body=B'
    """
    path = "/".join(urllib.parse.quote(part, safe="") for part in repo.split("/", 1))
    span = f"{urllib.parse.quote(base, safe='/')}...{urllib.parse.quote(head, safe='/:')}"
    query = urllib.parse.urlencode({"expand": "1", "title": title, "body": body}, quote_via=urllib.parse.quote)
    return f"{web_url.rstrip('/')}/{path}/compare/{span}?{query}"
