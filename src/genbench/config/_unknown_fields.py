"""The one text of the warning about an unknown config key: what happens to it and how to fix it.

The loader (:mod:`genbench.config._leniency`) and the schema's own lenient sections (an
:class:`~genbench.config._schema.EvaluationMetricConfig` validated by itself, as ``compute_metric`` does with a
mapping) both word it here, so an author reads the same sentence wherever the key turns up.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable
from typing import Any

# How close (difflib ratio) an unknown key must be to an allowed one to be taken for its misspelling.
MISSPELLING_CUTOFF = 0.75
DELETE_IT = "delete it (see docs/config.md or `genbench-cli schema` for the allowed fields)"


def unknown_field_message(
    key: str, allowed: Iterable[str], *, kept: bool, home: str | None = None, advice: str = ""
) -> str:
    """The warning's message for an unknown ``key`` among ``allowed`` fields.

    Args:
        key: The unknown key.
        allowed: The fields of the section it is in.
        kept: Whether the key stays on the model (``model_extra``) or is dropped.
        home: The dotted section where a field of that name belongs (``""``: the top level), when it is a field of
            another section than this one; None otherwise.
        advice: The fix to suggest when the key is neither a misspelling nor a field of another section.

    Returns:
        ``unknown field, <kept or ignored>; <fix>``: the fix is "did you mean" for a misspelling, else where the
        field belongs, else ``advice`` (or: delete it).

    >>> unknown_field_message("averge", ["hf_id", "average"], kept=True)
    'unknown field, kept on the config, but not used; did you mean `average`?'
    >>> unknown_field_message("task_type", ["hf_id"], kept=False, home="")
    'unknown field, ignored; it belongs in `the top level`: move it there'
    """
    suggestion = difflib.get_close_matches(key, list(allowed), n=1, cutoff=MISSPELLING_CUTOFF)
    if suggestion:
        fix = f"did you mean `{suggestion[0]}`?"
    elif home is not None:
        fix = f"it belongs in `{home or 'the top level'}`: move it there"
    else:
        fix = advice or DELETE_IT
    return f"unknown field, {'kept on the config, but not used' if kept else 'ignored'}; {fix}"


def compute_kwargs_hint(key: str, value: Any) -> str:
    """The fix for an unknown key of a metric entry, which the metric never receives.

    >>> compute_kwargs_hint("average", "macro")
    'to pass it to the metric\\'s compute, write compute_extra_kwargs: {average: "macro"}'
    """
    try:
        shown = json.dumps(value)
    except (TypeError, ValueError):
        shown = "..."
    if len(shown) > 40:
        shown = "..."
    return f"to pass it to the metric's compute, write compute_extra_kwargs: {{{key}: {shown}}}"
