"""What a leaderboard is told about its models beyond their results: the pretraining corpora each was trained on
(``genbench-cli leaderboard --model-info models.yaml``), which turn measured shift into contamination flags.

See docs/leaderboard.md (Contamination flags).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from genbench._leaderboard.collect import LeaderboardError, ModelEntry


@dataclass(frozen=True)
class ModelInfo:
    """One model's entry: the names of the corpora it was trained on, as shift reports name them (``c4``)."""

    training_corpora: list[str]


def _entry(value: Any) -> ModelInfo:
    """An entry of the file, checked (a plain dataclass: pydantic would load with every leaderboard build for one
    field)."""
    if not isinstance(value, dict) or set(value) != {"training_corpora"}:
        keys = ", ".join(map(str, value)) if isinstance(value, dict) else type(value).__name__
        raise ValueError(f"expected exactly the key training_corpora, got {keys or 'nothing'}")
    corpora = value["training_corpora"]
    if not isinstance(corpora, list) or not all(isinstance(name, str) and name for name in corpora):
        raise ValueError("training_corpora must be a list of corpus names")
    return ModelInfo(list(corpora))


def read_model_info(path: str | Path) -> dict[str, ModelInfo]:
    """A model-info file: a YAML (or JSON) mapping of model label or spec -> ``{training_corpora: [NAME, ...]}``.

    Raises:
        LeaderboardError: the file is missing, not YAML, not such a mapping; the message names the file and key.
    """
    import yaml

    path = Path(path)
    try:
        document: Any = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise LeaderboardError(f"{path}: not a readable model-info file ({exc}).") from None
    if not isinstance(document, dict):
        raise LeaderboardError(
            f"{path}: a model-info file maps model labels or specs to their training corpora, e.g. "
            "'hf:gpt2: {training_corpora: [webtext]}'."
        )
    entries = {}
    for key, value in document.items():
        try:
            entries[str(key)] = _entry(value)
        except ValueError as exc:
            raise LeaderboardError(
                f"{path}, model {key!r}: {exc}. Write it as '{key}: {{training_corpora: [NAME, ...]}}'."
            ) from None
    return entries


def training_corpora(
    info: Mapping[str, ModelInfo], models: Iterable[ModelEntry]
) -> tuple[dict[str, frozenset[str]], list[str]]:
    """Each model's declared corpora (by model key; an entry for its label wins over one for its spec), and the
    entries that name no model of the leaderboard."""
    declared: dict[str, frozenset[str]] = {}
    used: set[str] = set()
    for model in models:
        for name in (model.label, model.spec):
            if name in info:
                declared[model.key] = frozenset(info[name].training_corpora)
                used.add(name)
                break
    return declared, sorted(set(info) - used)
