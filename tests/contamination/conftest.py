"""Fixtures for the contamination tests: isolated index folders and small training files."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from genbench.contamination import SearchMode, TestSet
from genbench.contamination.backend import SearchResult
from genbench.contamination.embedded import EmbeddedBackend
from genbench.contamination.sources import UnitSpec, load_training_dataset


@pytest.fixture(autouse=True)
def genbench_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Default index folder inside the test's tmp_path, so no test touches the user's data folder."""
    home = tmp_path / "genbench-home"
    monkeypatch.setenv("GENBENCH_HOME", str(home))
    return home


def write_jsonl(path: Path, rows: Sequence[dict]) -> Path:
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    return path


def chat(*turns: str, system: str | None = None) -> dict:
    """A conversation whose user turns are ``turns`` (each answered by the assistant)."""
    messages = [{"role": "system", "content": system}] if system else []
    for number, turn in enumerate(turns):
        messages += [{"role": "user", "content": turn}, {"role": "assistant", "content": f"answer {number}"}]
    return {"messages": messages}


@pytest.fixture(name="write_jsonl")
def write_jsonl_fixture() -> Callable[[Path, Sequence[dict]], Path]:
    """``write_jsonl(path, rows)`` writes rows as JSONL."""
    return write_jsonl


@pytest.fixture(name="chat")
def chat_fixture() -> Callable[..., dict]:
    """``chat(*user_turns, system=None)`` builds a conversation row."""
    return chat


@pytest.fixture
def text_search(tmp_path: Path) -> Callable[..., SearchResult]:
    """Index ``units`` (one per row of a text field) and search test rows in it."""
    counter = iter(range(1000))

    def run(
        units: Sequence[str],
        rows: Sequence[Sequence[str]] | Sequence[str],
        *,
        ngram_size: int | None = None,
        threshold: float | None = None,
        top_k: int = 1,
        fields: Sequence[str] | None = None,
        **open_options,
    ) -> SearchResult:
        number = next(counter)
        train = write_jsonl(tmp_path / f"train{number}.jsonl", [{"text": unit} for unit in units])
        backend = EmbeddedBackend(tmp_path / f"indexes{number}")
        backend.build(load_training_dataset(str(train)), UnitSpec(text_field="text"))
        index = backend.open(str(train), **open_options)
        table = [(row,) if isinstance(row, str) else tuple(row) for row in rows]
        names = fields or tuple(f"f{i}" for i in range(len(table[0])))
        mode = SearchMode.create(ngram_size=ngram_size, match_threshold=threshold)
        return index.search(TestSet("test", tuple(names), table), mode, top_k=top_k)

    return run
