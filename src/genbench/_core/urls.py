"""Credentials never printed: the user information of URLs (``https://user:password@host``) hidden in messages."""

from __future__ import annotations

import re

_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/?#\s]*)@")


def redact_url(text: str) -> str:
    """``text`` (a URL, or a message that contains URLs) with the password of every URL replaced by ``***``.

    A user name alone (``https://TOKEN@host``, as tokens are often given) is hidden too; a URL without user
    information is unchanged. Used for every message and log line that shows a URL a user gave (Elasticsearch
    servers, downloads, model servers).

    >>> redact_url("https://elastic:s3cret@host:9200")
    'https://elastic:***@host:9200'
    >>> redact_url("Cannot reach http://ghp_token@example.com/x and https://host:9200/")
    'Cannot reach http://***@example.com/x and https://host:9200/'
    """
    return _USERINFO.sub(_hide, text)


def _hide(match: re.Match[str]) -> str:
    user, colon, _ = match["userinfo"].partition(":")
    shown = f"{user}:***" if colon else "***"
    return f"{match['scheme']}{shown}@"
