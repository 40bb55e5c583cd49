"""What the fuzz tests share: their hypothesis settings, the property, the case counter and the input strategies.

The property: for any input, genbench either succeeds or raises a :class:`~genbench._core.errors.GenBenchError` with a
message; any other exception (``TypeError``, ``UnicodeDecodeError``, ``KeyError``, a pyarrow error, ...) is a bug.

Settings are bounded so that ``make test`` stays fast, and derandomized so that every run tries the same cases.
``GENBENCH_FUZZ_EXAMPLES=2000`` runs a long campaign with the same tests; ``GENBENCH_FUZZ_RANDOM=1`` draws new
cases each run (hypothesis prints the seed and a reproduction blob of a failure).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import threading
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st

from genbench._core.errors import GenBenchError

CASES: Counter[str] = Counter()
"""Cases tried per fuzz test in this session."""
OUTCOMES: Counter[str] = Counter()
"""How the cases ended: ``ok``, ``error`` (a GenBenchError) or ``crash`` (collected, see COLLECT)."""

FUZZ = settings(
    max_examples=int(os.environ.get("GENBENCH_FUZZ_EXAMPLES", "8")),
    deadline=None,
    derandomize=os.environ.get("GENBENCH_FUZZ_RANDOM", "") in ("", "0"),
    database=None,  # no .hypothesis/ folder in the worktree
    print_blob=True,
    # A survey (GENBENCH_FUZZ_COLLECT) generates only: shrinking is for a failing test.
    phases=[Phase.explicit, Phase.generate] if os.environ.get("GENBENCH_FUZZ_COLLECT") else list(Phase),
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
        HealthCheck.large_base_example,
    ],
)


COLLECT = os.environ.get("GENBENCH_FUZZ_COLLECT")
"""A file to append crash signatures to instead of failing (a campaign that surveys every crash, not the first)."""

CASE_SECONDS = float(os.environ.get("GENBENCH_FUZZ_CASE_SECONDS", "120"))
"""The wall-clock limit of one case: a case that runs longer is a failure (hypothesis' deadline is checked only after
a case ends, so a hang would stall the campaign instead; one did: ``--ngram-size 1000000000``)."""


class CaseTimedOut(BaseException):
    """A case ran past :data:`CASE_SECONDS` (a ``BaseException``: genbench's ``except Exception`` does not take it)."""


@contextlib.contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`CaseTimedOut` in this thread after ``seconds`` (POSIX main thread; elsewhere no limit)."""
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        raise CaseTimedOut(f"the case ran past {seconds:g} s (GENBENCH_FUZZ_CASE_SECONDS): a hang, or far too slow")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def genbench_error_or_success(name: str, action: Callable[[], Any]) -> str:
    """Run ``action``: ``"ok"``, or ``"error"`` for a GenBenchError with a message; anything else propagates (a case
    past :data:`CASE_SECONDS` too, as :class:`CaseTimedOut`)."""
    CASES[name] += 1
    with warnings.catch_warnings(), _time_limit(CASE_SECONDS):
        warnings.simplefilter("ignore")  # lenient loading warns (GenbenchConfigWarning); warnings are not the property
        try:
            action()
        except GenBenchError as exc:
            assert str(exc).strip(), f"{type(exc).__name__} without a message"
            OUTCOMES["error"] += 1
            return "error"
        except Exception as exc:
            if not COLLECT:
                raise
            _record_crash(name, exc)
            OUTCOMES["crash"] += 1
            return "crash"
    OUTCOMES["ok"] += 1
    return "ok"


def _record_crash(name: str, exc: Exception) -> None:
    import traceback

    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "/genbench/" in f.filename]
    where = f"{frames[-1].filename.split('/genbench/')[-1]}:{frames[-1].lineno}" if frames else "?"
    message = str(exc).replace("\n", " ")[:160]
    with open(COLLECT, "a", encoding="utf-8") as handle:
        handle.write(f"{name}\t{type(exc).__name__}\t{where}\t{message}\n")


# --- values ------------------------------------------------------------------------------------------------------

INTERESTING_TEXT = [
    "",
    " ",
    "\0",
    "a\0b",
    "\ud7ff\ufeff\u202e",
    "é" * 3,
    "😀",
    "\n",
    "../../etc/passwd",
    "/dev/zero",
    "(a+)+$",
    "[",
    "x" * 5000,
    "train:0",
    "test:99999",
    "free_form",
    "multiple_choice",
    "sequence_labeling",
    "reranking",
    "exact_match",
    "accuracy",
    "manual",
    "cross_encoder_reranking",
    "input",
    "target",
]

texts = st.one_of(st.sampled_from(INTERESTING_TEXT), st.text(max_size=12))
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, 1, -1, 2**31, 2**63]),
    st.floats(allow_nan=True, allow_infinity=True),
    texts,
)
json_values = st.recursive(
    scalars,
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(texts, children, max_size=4)),
    max_leaves=8,
)


# --- bytes of a text file ----------------------------------------------------------------------------------------

ENCODINGS = ["utf-8", "utf-8", "utf-8", "utf-8-sig", "latin-1", "utf-16", "cp1252"]


@st.composite
def encoded(draw: st.DrawFn, text: str) -> bytes:
    """``text`` as bytes, sometimes in another encoding, cut short, with a NUL or stray bytes inserted."""
    encoding = draw(st.sampled_from(ENCODINGS))
    try:
        data = text.encode(encoding)
    except UnicodeEncodeError:
        data = text.encode("utf-8", errors="surrogatepass")
    mutation = draw(st.sampled_from(["none", "none", "none", "truncate", "nul", "bytes", "crlf", "empty"]))
    if mutation == "truncate" and data:
        data = data[: draw(st.integers(0, len(data) - 1))]
    elif mutation in ("nul", "bytes"):
        position = draw(st.integers(0, len(data)))
        insert = b"\0" if mutation == "nul" else draw(st.binary(min_size=1, max_size=4))
        data = data[:position] + insert + data[position:]
    elif mutation == "crlf":
        data = data.replace(b"\n", b"\r\n")
    elif mutation == "empty":
        data = b""
    return data


def dumps(value: Any) -> str:
    """JSON text of a value (NaN and Infinity included, as Python writes them; a config or data error)."""
    return json.dumps(value, ensure_ascii=False)


# --- structural mutations of a JSON document -----------------------------------------------------------------------


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*prefix, index))
    return found


def _get(value: Any, path: tuple) -> Any:
    for key in path:
        value = value[key]
    return value


@st.composite
def mutated(draw: st.DrawFn, document: Any, max_mutations: int = 3) -> Any:
    """``document`` (a JSON value, copied) with up to ``max_mutations`` values replaced, keys deleted or added."""
    document = json.loads(json.dumps(document))
    for _ in range(draw(st.integers(0, max_mutations))):
        path = draw(st.sampled_from(_paths(document)))
        operation = draw(st.sampled_from(["replace", "replace", "delete", "add", "wrap"]))
        if not path:
            if operation == "replace":
                document = draw(json_values)
            continue
        parent, key = _get(document, path[:-1]), path[-1]
        if operation == "replace":
            parent[key] = draw(json_values)
        elif operation == "wrap":
            parent[key] = [parent[key]]
        elif operation == "delete":
            del parent[key]
        elif isinstance(parent, dict):
            parent[draw(texts)] = draw(json_values)
        else:
            parent.insert(key, draw(json_values))
    return document
