"""Reaching the Hugging Face Hub for an ``hf:ID`` model: genbench's own answer when it cannot be reached.

Without ``HF_HUB_OFFLINE=1``, transformers asks the Hub for every file of a model, retries for tens of seconds when
there is no network, and ends with a generic connection error. :func:`hub_load_mode` asks once, with a short timeout:
when the Hub cannot be reached, a model in the Hub cache is read from it (``local_files_only``), and any other is a
:class:`~genbench.runs._errors.ModelRunError` that says how to get a model offline. See docs/running_models.md.
"""

from __future__ import annotations

import os
from pathlib import Path

from genbench.runs._errors import ModelRunError

OFFLINE_VARIABLES = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
PROBE_TIMEOUT_S = 5.0
OFFLINE_MODEL_HINT = (
    "give a local model directory (hf:/path/to/model, as written by save_pretrained), or make a small offline model "
    "to try genbench with: `genbench-cli models make-tiny models/tiny-gpt2`, then `--model hf:./models/tiny-gpt2`"
)


def hub_offline() -> bool:
    """Whether huggingface_hub is told to stay offline (``HF_HUB_OFFLINE``, or transformers' ``TRANSFORMERS_OFFLINE``),
    read from the environment now (huggingface_hub reads it once, when imported)."""
    return any(os.environ.get(name, "").upper() in {"1", "ON", "YES", "TRUE"} for name in OFFLINE_VARIABLES)


def _in_hub_cache(target: str, revision: str | None) -> bool | None:
    """Whether the hub model ``target`` is in the Hub cache; None when ``target`` is not a valid hub id."""
    from huggingface_hub import try_to_load_from_cache

    try:
        return isinstance(try_to_load_from_cache(target, "config.json", revision=revision), str)
    except ValueError:  # not a valid hub id (HFValidationError): transformers' own message says why
        return None


def hub_unreachable(endpoint: str) -> str | None:
    """Why the Hub at ``endpoint`` cannot be reached (one request, no retries), or None when it answers."""
    from huggingface_hub.utils import get_session

    try:
        get_session().head(endpoint, timeout=PROBE_TIMEOUT_S)
    except Exception as exc:  # noqa: BLE001 - any failure to connect; the client's error types vary by version
        return f"{type(exc).__name__}: {exc}"
    return None


def hub_load_mode(target: str, revision: str | None) -> bool:
    """Whether to load the hub model ``target`` from the Hub cache only (``local_files_only``).

    A local directory, an invalid id, or a Hub that answers: False (transformers goes on as usual).

    Raises:
        ModelRunError: the model is not in the Hub cache and the Hub is offline (``HF_HUB_OFFLINE=1``) or cannot be
            reached.
    """
    if Path(target).expanduser().is_dir():
        return False
    cached = _in_hub_cache(target, revision)
    if cached is None:
        return False
    from huggingface_hub import constants

    if hub_offline():
        if cached:
            return False
        raise ModelRunError(
            f"hf:{target}: the Hugging Face Hub is offline (HF_HUB_OFFLINE=1) and {target} is not in the Hub cache "
            f"({constants.HF_HUB_CACHE}). Unset HF_HUB_OFFLINE (and TRANSFORMERS_OFFLINE) once where the Hub can be "
            f"reached so that it is downloaded, or {OFFLINE_MODEL_HINT}."
        )
    problem = hub_unreachable(constants.ENDPOINT)
    if problem is None:
        return False
    if cached:
        return True
    raise ModelRunError(
        f"hf:{target}: the Hugging Face Hub ({constants.ENDPOINT}) cannot be reached ({problem}), and {target} is "
        f"not in the Hub cache ({constants.HF_HUB_CACHE}). Download it once where the Hub can be reached "
        f"(`hf download {target}`), or {OFFLINE_MODEL_HINT}."
    )
