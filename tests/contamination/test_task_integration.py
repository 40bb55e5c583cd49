"""Contamination checks built into tasks: config rules, check_contamination, clean-vs-all evaluation, test-task."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from genbench import load_task
from genbench._core.errors import ConfigError, GenbenchConfigWarning
from genbench.config import task_config_from_dict
from genbench.contamination import ContaminationError, build_index
from genbench.review._base import TaskCheckWarning
from genbench.review.checks import check_ngram_overlap

TEST_ROWS = [
    {"input": "the quick brown fox jumps over the lazy dog near the river bank", "target": "a"},
    {"input": "a completely different sentence about tall mountains and cold snow", "target": "b"},
    {"input": "what is the capital city of the small country on the big map", "target": "c"},
    {"input": "nothing here resembles anything in the training corpus at all today", "target": "d"},
]
TRAIN_CORPUS = [
    {"text": "Yesterday the quick brown fox jumps over the lazy dog near the river bank, they said."},
    {"text": "Question: what is the capital city of the small country on the big map?"},
    {"text": "unrelated filler text with no overlap"},
]


def config(**extra) -> dict:
    return {
        "name": "Contaminated",
        "description": "A task whose test set partly occurs in a training corpus.",
        "keywords": ["contamination"],
        "authors": ["genbench"],
        "data_source": {"type": "manual", "test": "test.jsonl", "train": "train.jsonl"},
        "has_train_set": True,
        "task_type": "free_form",
        "evaluation_metrics": [{"hf_id": "exact_match", "best_score": 1.0}],
        "preparation_strategies": {"finetuning": {"objective": "maximum_likelihood"}},
        **extra,
    }


def write_jsonl(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


@pytest.fixture
def index_dir(tmp_path, task_root) -> Path:
    """The task ``contaminated`` in the test's task root, and the index of its training corpus (returned)."""
    task_dir = task_root / "contaminated"
    task_dir.mkdir()
    (task_dir / "__init__.py").touch()
    (task_dir / "task.py").write_text("from genbench import Task\n\n\nclass ContaminatedTask(Task):\n    pass\n")
    write_jsonl(task_dir / "test.jsonl", TEST_ROWS)
    write_jsonl(task_dir / "train.jsonl", [{"input": "x y", "target": "z"}, {"input": "p q", "target": "r"}])
    write_jsonl(task_dir / "corpus.jsonl", TRAIN_CORPUS)
    checks = [
        {"train_dataset": "corpus.jsonl", "mode": "exact"},
        {"train_dataset": "corpus.jsonl", "mode": "ngram", "ngram_size": 5, "match_threshold": 0.5},
    ]
    (task_dir / "config.jsonnet").write_text(json.dumps(config(contamination_checks=checks)))
    build_index(str(task_dir / "corpus.jsonl"), text_field="text", messages_field=None, index_dir=tmp_path / "idx")
    return tmp_path / "idx"


def test_config_rules_for_contamination_checks():
    unknown_key = pytest.warns(GenbenchConfigWarning, match="contamination_checks.2.typo: unknown field, ignored")
    with pytest.raises(ConfigError) as info, unknown_key:
        task_config_from_dict(
            config(
                contamination_checks=[
                    {"train_dataset": "d", "mode": "ngram"},
                    {"train_dataset": "d", "mode": "exact", "ngram_size": 3, "match_threshold": 0.2},
                    {"train_dataset": "d", "mode": "embedding", "match_threshold": 0.9, "typo": 1},
                ]
            )
        )
    found = {p.field: p.message for p in info.value.problems}
    assert found["contamination_checks.0.match_threshold"].startswith("required for mode 'ngram'")
    assert found["contamination_checks.1.ngram_size"] == "only allowed when mode is 'ngram'"
    assert "not used by mode 'exact'" in found["contamination_checks.1.match_threshold"]
    ok = task_config_from_dict(config(contamination_checks=[{"train_dataset": "d", "match_threshold": 0.5}]))
    assert ok.contamination_checks[0].label == "ngram8" and ok.contamination_checks[0].fields == ["input"]


def test_check_contamination_scores_and_keys(index_dir):
    task = load_task("contaminated")
    scores = task.check_contamination(index_dir=index_dir)
    (exact_key, ngram_key, clean_key) = list(scores)
    assert exact_key == "contamination__corpus.jsonl__exact"
    assert ngram_key == "contamination__corpus.jsonl__ngram5" and clean_key == "contamination__clean_fraction"
    # Test rows 0 and 2 occur verbatim (as token sequences) inside training units; 1 and 3 share nothing.
    assert scores[exact_key] == 0.5 and scores[ngram_key] == 0.5 and scores[clean_key] == 0.5


def test_clean_and_all_evaluation(index_dir):
    task = load_task("contaminated")
    gold = task.get_datasets_raw()["test"]
    # Right on the contaminated rows only: perfect "all" would hide that the clean subset scores zero.
    predictions = [{"target": r["target"] if i in (0, 2) else "wrong"} for i, r in enumerate(TEST_ROWS)]
    result = task.evaluate_predictions_clean_and_all(predictions=predictions, gold=gold, index_dir=index_dir)
    assert result["hf_exact_match__exact_match"] == 0.5
    assert result["clean.hf_exact_match__exact_match"] == 0.0 and result["clean.num_examples"] == 2


def test_missing_checks_or_index_are_clear_errors(index_dir, tmp_path):
    task = load_task("contaminated")
    task.config.contamination_checks = None
    with pytest.raises(ContaminationError, match="declares no contamination_checks"):
        task.check_contamination(index_dir=index_dir)
    task = load_task("contaminated")
    with pytest.raises(ContaminationError):
        task.check_contamination(index_dir=tmp_path / "empty_index_dir")


def test_test_task_warns_on_near_duplicate_train_examples(index_dir):
    task_dir = Path(load_task("contaminated").task_dir)
    near = dict(TEST_ROWS[0], input=TEST_ROWS[0]["input"] + " again")
    write_jsonl(task_dir / "train.jsonl", [near, {"input": "p q", "target": "r"}])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_ngram_overlap(load_task("contaminated"))
    messages = [str(w.message) for w in caught if issubclass(w.category, TaskCheckWarning)]
    assert len(messages) == 1 and "1 test example of 4 share more than 50%" in messages[0]
    assert "test example 0 and train example 0" in messages[0]


def test_a_check_whose_ngrams_are_longer_than_the_test_inputs_says_so(index_dir):
    # every test input has at most 13 tokens: a 14-gram check can match none of them, so "clean" would mean nothing
    from genbench.contamination._errors import ContaminationWarning
    from genbench.contamination._task_checks import check_task_contamination

    task = load_task("contaminated")
    check = task.config.contamination_checks[1].model_copy(update={"ngram_size": 14})
    expected = r"contaminated: contamination check .*ngram14: 4 of 4 test instances have fewer than 14 tokens"
    with pytest.warns(ContaminationWarning, match=expected + " in every field: no training data can match them"):
        outcome = check_task_contamination(task, [check], index_dir=index_dir)
    assert outcome.unmatchable == {"contamination__corpus.jsonl__ngram14": 4}
    with warnings.catch_warnings():
        warnings.simplefilter("error", ContaminationWarning)  # the declared 5-gram check can match: no warning
        assert check_task_contamination(load_task("contaminated"), index_dir=index_dir).unmatchable == {}


def test_the_overlap_check_is_skipped_when_no_test_input_is_long_enough(index_dir):
    from genbench.review._base import TaskCheckSkipped

    task_dir = Path(load_task("contaminated").task_dir)
    write_jsonl(task_dir / "test.jsonl", [{"input": "612 + 6", "target": "618"}, {"input": "9 + 40", "target": "49"}])
    with pytest.raises(TaskCheckSkipped, match="every test input has fewer than 8 tokens"):
        check_ngram_overlap(load_task("contaminated"))
