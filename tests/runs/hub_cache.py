"""A Hugging Face Hub cache holding one model's ``config.json``, as ``huggingface_hub`` lays it out (no download)."""

from __future__ import annotations

from pathlib import Path


def cache_hub_model(cache: Path, repo_id: str, revision: str = "abc123") -> Path:
    """Write ``repo_id`` (``gpt2``, ``org/name``) into the Hub cache ``cache`` on ``main``; returns ``cache``."""
    folder = cache / f"models--{repo_id.replace('/', '--')}"
    snapshot = folder / "snapshots" / revision
    snapshot.mkdir(parents=True)
    (snapshot / "config.json").write_text("{}", encoding="utf-8")
    (folder / "refs").mkdir()
    (folder / "refs" / "main").write_text(revision, encoding="utf-8")
    return cache
