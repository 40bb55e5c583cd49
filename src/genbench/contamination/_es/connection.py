"""Connecting to Elasticsearch: URL, credentials, TLS, and one clear message for every way it can fail.

The URL comes from ``--es-url`` or ``GENBENCH_ES_URL`` (default ``http://localhost:9200``); credentials from
``ELASTIC_API_KEY`` (an API key) or ``ELASTIC_PASSWORD`` (user ``elastic``, as in the seed's scripts). TLS
certificates are verified unless told otherwise; ``--es-ca-certs`` names the CA of a self-signed cluster (the
``http_ca.crt`` a new Elasticsearch writes).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from genbench._core.extras import import_optional
from genbench._core.urls import redact_url
from genbench.contamination._errors import ContaminationError

if TYPE_CHECKING:
    from elasticsearch import Elasticsearch

URL_ENV = "GENBENCH_ES_URL"
PASSWORD_ENV = "ELASTIC_PASSWORD"
API_KEY_ENV = "ELASTIC_API_KEY"
DEFAULT_URL = "http://localhost:9200"
USER = "elastic"
MINIMUM_MAJOR = 8
"""Oldest server major version: top-level ``knn``, point-in-time and ``dense_vector`` cosine indexes."""


def require_client() -> Any:
    """The ``elasticsearch`` module.

    Raises:
        MissingDependencyError: it is not installed (the message names the extra).
    """
    return import_optional("elasticsearch", "es", "Elasticsearch indexes")


def connect(
    url: str | None = None,
    *,
    api_key: str | None = None,
    password: str | None = None,
    ca_certs: str | None = None,
    verify_certs: bool = True,
    request_timeout: float = 120.0,
) -> Elasticsearch:
    """An ``elasticsearch.Elasticsearch`` client, checked against the server (reachable, authorised, compatible).

    Raises:
        ContaminationError: the server is down, refuses the credentials, or is not a compatible Elasticsearch.
    """
    elasticsearch = require_client()
    url = url or os.environ.get(URL_ENV) or DEFAULT_URL
    api_key = api_key or os.environ.get(API_KEY_ENV) or None
    password = password or os.environ.get(PASSWORD_ENV) or None
    options: dict[str, Any] = {"request_timeout": request_timeout, "verify_certs": verify_certs}
    if ca_certs is not None:
        if not os.path.isfile(ca_certs):
            raise ContaminationError(f"--es-ca-certs {ca_certs}: no such file (the CA certificate of the cluster).")
        options["ca_certs"] = ca_certs
    if api_key is not None:
        options["api_key"] = api_key
    elif password is not None:
        options["basic_auth"] = (USER, password)
    try:
        client = elasticsearch.Elasticsearch(url, **options)
    except ValueError as exc:  # a malformed URL
        raise ContaminationError(
            redact_url(f"Invalid Elasticsearch URL {url!r} (--es-url / {URL_ENV}): {exc}")
        ) from None
    check_server(client, url)
    return client


def check_server(client: Elasticsearch, url: str | None = None) -> dict[str, Any]:
    """The server's ``info()``, after checking its version.

    Raises:
        ContaminationError: unreachable, unauthorised, or older than Elasticsearch 8.
    """
    where = redact_url(url or client_url(client))
    with translate_errors("connect", where):
        reply = client.info()
    info = reply_dict(reply, f"The server at {where} answered its info request with")
    version = info.get("version")
    number = version.get("number") if isinstance(version, dict) else None
    if not isinstance(number, str):
        raise ContaminationError(
            f"The server at {where} gives no version number in its info (version: {_shown(version)}): point --es-url "
            "at an Elasticsearch server."
        )
    try:
        major = int(number.split(".")[0])
    except ValueError:
        major = 0
    if major < MINIMUM_MAJOR:
        raise ContaminationError(
            f"The server at {where} runs version {number}; the Elasticsearch backend needs Elasticsearch "
            f"{MINIMUM_MAJOR} or later."
        )
    return info


def reply_dict(reply: Any, what: str) -> dict[str, Any]:
    """A reply's body as a dict (the client's responses behave as one).

    Raises:
        ContaminationError: the reply is not a JSON object (``what`` starts the message).
    """
    body = getattr(reply, "body", reply)
    if not isinstance(body, dict):
        raise ContaminationError(f"{what} {_shown(body)}, not a JSON object: is this an Elasticsearch server?")
    return body


def _shown(value: Any) -> str:
    text = repr(value)
    return redact_url(text if len(text) <= 120 else text[:117] + "...")


def client_url(client: Elasticsearch) -> str:
    """The URL of the client's first node, for messages (credentials redacted)."""
    try:
        node = next(iter(client.transport.node_pool.all()))
        return redact_url(str(node.base_url))
    except Exception:  # any client internals: only used in a message
        return "the Elasticsearch server"


@contextlib.contextmanager
def translate_errors(action: str, url: str | None = None) -> Iterator[None]:
    """Turn the client's exceptions into one :class:`ContaminationError` line saying what to do.

    The URL's credentials (``https://elastic:PASSWORD@host``) are redacted in the message, and in the client's own
    text quoted in it.
    """
    elasticsearch = require_client()
    import elastic_transport

    where = redact_url(url) if url else "the Elasticsearch server"
    try:
        yield
    except elastic_transport.TlsError as exc:
        raise ContaminationError(
            f"TLS to {where} failed ({_first_line(exc)}): pass the cluster's CA certificate with --es-ca-certs "
            "(e.g. config/certs/http_ca.crt), or use the URL's right scheme (http:// or https://)."
        ) from None
    except (elastic_transport.ConnectionError, elastic_transport.ConnectionTimeout) as exc:
        raise ContaminationError(
            f"Cannot reach Elasticsearch at {where} to {action} ({_first_line(exc)}): start it (see "
            f"docs/contamination.md) or point --es-url / {URL_ENV} at it."
        ) from None
    except elasticsearch.AuthenticationException:
        raise ContaminationError(
            f"Elasticsearch at {where} refused the credentials (401) to {action}: set {PASSWORD_ENV} (user "
            f"{USER}) or {API_KEY_ENV}."
        ) from None
    except elasticsearch.AuthorizationException as exc:
        raise ContaminationError(
            f"Elasticsearch at {where} does not allow this user to {action} (403: {_reason(exc)}): use a user or "
            "API key with the index privileges create_index, write, read and view_index_metadata."
        ) from None
    except elasticsearch.UnsupportedProductError:
        raise ContaminationError(
            f"The server at {where} is not Elasticsearch (the client checks the product): point --es-url at an "
            "Elasticsearch server."
        ) from None
    except elasticsearch.ApiError as exc:
        error_type = _error_type(exc)
        if exc.status_code == 406 or error_type == "media_type_header_exception":
            version = getattr(elasticsearch, "__versionstr__", "?")
            raise ContaminationError(
                f"Elasticsearch at {where} does not speak the API of this client (elasticsearch {version}): "
                f"install the client of the server's major version (pip install 'elasticsearch>=N,<N+1')."
            ) from None
        raise ContaminationError(
            f"Elasticsearch at {where} refused to {action}: {exc.status_code} {error_type}: {_reason(exc)}"
        ) from None
    except elastic_transport.TransportError as exc:  # e.g. a reply that is not JSON (SerializationError)
        raise ContaminationError(
            f"Elasticsearch at {where} gave a reply genbench cannot read to {action} ({_first_line(exc)}): is "
            "--es-url an Elasticsearch server?"
        ) from None


def _first_line(exc: BaseException) -> str:
    text = redact_url(str(exc)).strip().splitlines()
    return text[0][:300] if text else type(exc).__name__


def _error_type(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return str(body["error"].get("type", ""))
    return ""


def _reason(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        error = body["error"]
        causes = error.get("root_cause") or []
        reason = error.get("reason") or (causes[0].get("reason") if causes else None)
        if reason:
            return redact_url(str(reason))[:500]
    return _first_line(exc)
