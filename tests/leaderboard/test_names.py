"""Metric labels: every result key the shipped tasks produce reads as a person would write it (no raw separators),
and the labels of a handful of keys are exactly the expected ones; the direction notes, "closer to zero" included."""

from __future__ import annotations

import json

import pytest

from genbench._leaderboard.names import direction_note, metric_direction, metric_label

# Answers every kind of request, so that each shipped task runs and gives all its keys: log-likelihoods (multiple
# choice, with its length-normalised scores), generations and reranking scores.
PREDICTOR = """
def answer(requests, task, **options):
    if task == "loglikelihood":
        return [-float(len(continuation)) for _, continuation in requests]
    if task == "score_pairs":
        return [float(len(document)) for _, document in requests]
    return ["0" for _ in requests]
"""


@pytest.fixture(scope="module")
def shipped_keys(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The metric keys of the results files of a ``python:`` predictor run over every shipped task (the merged
    result of the task with subtasks included)."""
    from genbench.runs import run
    from genbench.runs._scoring import BootstrapSettings

    root = tmp_path_factory.mktemp("names")
    (root / "predictor.py").write_text(PREDICTOR)
    run(
        f"python:{root / 'predictor.py'}:answer",
        "all",
        output_dir=root / "results",
        shots=[0],
        limit=20,
        bootstrap=BootstrapSettings(resamples=20, statistic_resamples=5),
    )
    keys = set()
    for path in (root / "results").rglob("*.json"):
        for evaluation in json.loads(path.read_text())["evaluations"]:
            keys.update(evaluation["metrics"])
    return sorted(keys)


def test_the_run_gives_the_keys_with_prefixes(shipped_keys: list[str]) -> None:
    # the kinds of keys the labels must handle are there (else the test below would check less than it says)
    for expected in ("affirmative.", "length_normalised.", "negation_gap__", "hf_seqeval__", "_rate"):
        assert any(expected in key for key in shipped_keys), expected


def test_no_label_of_a_shipped_key_shows_a_raw_separator(shipped_keys: list[str]) -> None:
    labels = {key: metric_label(key) for key in shipped_keys}
    raw = {key: label for key, label in labels.items() if any(s in label for s in (".", "_", "hf "))}
    assert not raw, raw
    assert all(label[0].isupper() or label.startswith("nDCG") for label in labels.values()), labels
    # two keys never share a label (the hover shows the key, but the column names must already tell them apart)
    assert len(set(labels.values())) == len(labels), labels


@pytest.mark.parametrize(
    ("key", "label"),
    [
        ("hf_accuracy__accuracy", "Accuracy"),
        ("affirmative.hf_accuracy__accuracy", "Accuracy, affirmative subtask"),
        ("length_normalised.hf_accuracy__accuracy", "Accuracy (length-normalised)"),
        ("negated.length_normalised.hf_f1__f1", "F1 (length-normalised), negated subtask"),
        ("negation_gap__hf_accuracy__accuracy", "Negation gap in accuracy"),
        ("negation_gap__length_normalised.hf_accuracy__accuracy", "Negation gap in accuracy (length-normalised)"),
        ("negation_gap__out_of_set_answer_rate", "Negation gap in out-of-set answer rate"),
        ("hf_seqeval__LOC__f1", "F1, LOC entities"),
        ("hf_seqeval__overall_precision", "Overall precision"),
        ("out_of_set_label_rate", "Out-of-set label rate"),
        ("unmatched_answer_rate", "Unmatched answer rate"),
        ("hf_exact_match__exact_match", "Exact match"),
        ("cross_encoder_reranking__mrr@10", "MRR@10 (reranked)"),
        ("cross_encoder_reranking__base_ndcg@10", "nDCG@10 (first-stage ranking)"),
        # keys no shipped task gives: another library, a correlation, an unknown merge prefix
        ("hf_glue_cola__matthews_correlation", "MCC (glue cola)"),
        ("cross_encoder_correlation__spearman", "Spearman ρ"),
        ("domain_gap__hf_accuracy__accuracy", "Domain gap in accuracy"),
    ],
)
def test_labels_read_as_a_person_writes_them(key: str, label: str) -> None:
    assert metric_label(key) == label


def test_the_direction_notes_name_closer_to_zero() -> None:
    declared = {"negation_gap__*": "zero", "hf_cost__cost": "lower"}
    assert metric_direction("negation_gap__hf_f1__f1", declared) == ("zero", "declared by the task")
    assert direction_note("negation_gap__hf_f1__f1", declared) == (
        "|x| lower is better (closer to zero) (declared by the task)"
    )
    assert direction_note("hf_cost__cost", declared) == "lower is better (declared by the task)"
    # the name rule never guesses zero: an undeclared gap stays lower-is-better
    assert direction_note("negation_gap__hf_f1__f1") == "lower is better (guessed from its name)"


def test_every_rate_the_answer_checking_writes_is_guessed_lower_is_better(shipped_keys: list[str]) -> None:
    # the out-of-set and unmatched-answer rates count answers outside what the task allows: fewer is better
    from genbench.runs._scoring import OUT_OF_SET_METRICS

    rates = [key for key in shipped_keys if key.rsplit(".", 1)[-1] in OUT_OF_SET_METRICS.values()]
    assert len(rates) >= 5  # the three kinds, and the subtask keys of the merged negation result
    assert all(metric_direction(key) == ("lower", "guessed from its name") for key in rates), rates
