"""evaluate_predictions: key names, normalisation per task type, scored misses and every error message."""

from __future__ import annotations

import numpy as np
import pytest

from genbench._core.errors import MetricError, PredictionError
from genbench._core.vocabulary import TaskType
from genbench.config._schema import EvaluationMetricConfig, PromptBuilderConfig
from genbench.metrics import evaluate_predictions

ACCURACY = EvaluationMetricConfig(hf_id="accuracy")
EXACT_MATCH = EvaluationMetricConfig(hf_id="exact_match")
OPTIONS = ["yes", "no"]


def _mc_gold(targets, options=OPTIONS):
    return [{"input": f"q{i}", "target": t, "target_options": list(options)} for i, t in enumerate(targets)]


def _evaluate(predictions, gold, task_type=TaskType.MULTIPLE_CHOICE, metrics=(ACCURACY,), **kwargs):
    targets = [{"target": p} for p in predictions]
    return evaluate_predictions(predictions=targets, gold=gold, task_type=task_type, metrics=list(metrics), **kwargs)


# --- key names ---


def test_key_names_follow_the_original_framework():
    result = _evaluate(
        ["4", "5"],
        [{"input": "a", "target": "4"}, {"input": "b", "target": "6"}],
        "free_form",
        metrics=[EXACT_MATCH, {"hf_id": ["accuracy"]}],
    )
    assert list(result) == ["hf_exact_match__exact_match", "hf_accuracy__accuracy"]
    assert result["hf_exact_match__exact_match"] == 0.5
    assert result["hf_accuracy__accuracy"] == 0.5


def test_no_metrics_is_an_error():
    for metrics in (None, []):
        with pytest.raises(MetricError, match="no evaluation_metrics.*override evaluate_predictions"):
            evaluate_predictions(predictions=[], gold=[], task_type="free_form", metrics=metrics)


# --- multiple choice ---


def test_multiple_choice_int_and_string_predictions():
    gold = _mc_gold([0, 1, 1])
    assert _evaluate([0, 1, 1], gold)["hf_accuracy__accuracy"] == 1.0
    assert _evaluate(["yes", "no", "no"], gold)["hf_accuracy__accuracy"] == 1.0
    assert _evaluate(["yes", 1, np.int64(0)], gold)["hf_accuracy__accuracy"] == pytest.approx(2 / 3)


def test_gold_given_as_option_text():
    gold = _mc_gold(["yes", "no"])
    assert _evaluate([0, "no"], gold)["hf_accuracy__accuracy"] == 1.0
    with pytest.raises(PredictionError, match=r"gold\[1\] target 'maybe' is neither an index"):
        _evaluate([0, 0], _mc_gold(["yes", "maybe"]))


def test_out_of_options_and_out_of_range_are_misses():
    gold = _mc_gold([0, 1, 1, 0])
    result = _evaluate(["maybe", 7, -1, "yes"], gold, metrics=[ACCURACY, EXACT_MATCH])
    assert result["hf_accuracy__accuracy"] == 0.25
    assert result["hf_exact_match__exact_match"] == 0.25


GOLD_BINARY = [0, 1, 1, 0, 1]
PREDICTIONS_BINARY = [0, "maybe", 1, 5, "no"]  # normalised: [0, miss, 1, miss, 1]


def test_f1_binary_counts_a_miss_as_not_positive():
    result = _evaluate(
        PREDICTIONS_BINARY,
        _mc_gold(GOLD_BINARY),
        metrics=[{"hf_id": "f1"}, {"hf_id": "precision"}, {"hf_id": "recall"}],
    )
    # positives: gold at 1, 2, 4; predicted positive at 2, 4 -> precision 1, recall 2/3, f1 0.8
    assert result["hf_f1__f1"] == pytest.approx(0.8)
    assert result["hf_precision__precision"] == 1.0
    assert result["hf_recall__recall"] == pytest.approx(2 / 3)
    # with pos_label 0: gold 0 at 0, 3; predicted 0 only at 0 (the miss at 3 is "not 0") -> p 1, r 1/2
    result = _evaluate(
        PREDICTIONS_BINARY, _mc_gold(GOLD_BINARY), metrics=[{"hf_id": "f1", "compute_extra_kwargs": {"pos_label": 0}}]
    )
    assert result["hf_f1__f1"] == pytest.approx(2 / 3)


def test_f1_macro_restricts_labels_to_the_valid_ones():
    from sklearn import metrics as skm

    result = _evaluate(
        PREDICTIONS_BINARY,
        _mc_gold(GOLD_BINARY),
        metrics=[{"hf_id": "f1", "compute_extra_kwargs": {"average": "macro"}}],
    )
    # class 0: TP 1, FN 1 -> f1 2/3; class 1: TP 2, FN 1 -> f1 0.8; the misses are no class
    assert result["hf_f1__f1"] == pytest.approx((2 / 3 + 0.8) / 2)
    normalised = [0, -1, 1, -1, 1]
    assert result["hf_f1__f1"] == skm.f1_score(GOLD_BINARY, normalised, labels=[0, 1], average="macro")
    # what a -1 class would have given instead
    assert result["hf_f1__f1"] != pytest.approx(skm.f1_score(GOLD_BINARY, normalised, average="macro"))


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")
def test_multiclass_averages_and_per_class_output_with_misses():
    from sklearn import metrics as skm

    options = ["a", "b", "c"]
    gold = _mc_gold([0, 1, 2, 2, 1, 0], options)
    predictions = [0, "z", "c", 2, 0, 9]
    normalised = [0, -1, 2, 2, 0, -1]
    for average in ("micro", "macro", "weighted"):
        result = _evaluate(
            predictions, gold, metrics=[{"hf_id": "recall", "compute_extra_kwargs": {"average": average}}]
        )
        expected = skm.recall_score([0, 1, 2, 2, 1, 0], normalised, labels=[0, 1, 2], average=average)
        assert result["hf_recall__recall"] == expected
    result = _evaluate(predictions, gold, metrics=[{"hf_id": "precision", "compute_extra_kwargs": {"average": None}}])
    np.testing.assert_allclose(result["hf_precision__precision"], [0.5, 0.0, 1.0])
    # user-given labels are kept
    result = _evaluate(
        predictions, gold, metrics=[{"hf_id": "f1", "compute_extra_kwargs": {"average": None, "labels": [2, 0]}}]
    )
    np.testing.assert_allclose(result["hf_f1__f1"], [1.0, 0.5])


def test_matthews_binary_counts_a_miss_as_the_other_option():
    result = _evaluate(PREDICTIONS_BINARY, _mc_gold(GOLD_BINARY), metrics=[{"hf_id": "matthews_correlation"}])
    # misses become [0, 0->gold 1 so 0, 1, 1 (gold 0), 1]: TP 2, TN 1, FP 1, FN 1 -> (2 - 1) / 6
    assert result["hf_matthews_correlation__matthews_correlation"] == pytest.approx(1 / 6)


def test_multiple_choice_without_options_compares_labels_directly():
    gold = [{"input": "x", "target": 1}, {"input": "y", "target": 0}, {"input": "z", "target": 2}]
    assert _evaluate([1, 0, 7], gold)["hf_accuracy__accuracy"] == pytest.approx(2 / 3)
    with pytest.raises(PredictionError, match=r"predictions\[1\]\['target'\] is a str \('0'\), expected an int"):
        _evaluate([1, "0", 2], gold)
    gold = [{"input": "x", "target": "pos"}, {"input": "y", "target": "neg"}]
    assert _evaluate(["pos", "pos"], gold)["hf_accuracy__accuracy"] == 0.5


# --- free form ---


def test_free_form_stop_string_and_regex():
    gold = [{"input": "2+2", "target": "4"}, {"input": "3+3", "target": "6"}, {"input": "1+1", "target": "2"}]
    predictions = ["4\n\nQ: 5+5\nA: 10", "The answer is 6.", "10\n\n2"]
    assert _evaluate(predictions, gold, "free_form", [EXACT_MATCH])["hf_exact_match__exact_match"] == 0.0
    builder = PromptBuilderConfig()
    result = _evaluate(predictions, gold, "free_form", [EXACT_MATCH], prompt_builder=builder)
    assert result["hf_exact_match__exact_match"] == pytest.approx(1 / 3)  # only "4" after cutting
    result = _evaluate(
        predictions, gold, "free_form", [EXACT_MATCH], prompt_builder=builder, free_form_output_regex=r"\d+"
    )
    assert result["hf_exact_match__exact_match"] == pytest.approx(2 / 3)  # "4", "6"; "10" is wrong


def test_free_form_custom_stop_string():
    gold = [{"input": "q", "target": "Paris"}]
    builder = PromptBuilderConfig(stop_string=".")
    assert (
        _evaluate(["Paris. It is"], gold, "free_form", [EXACT_MATCH], prompt_builder=builder)[
            "hf_exact_match__exact_match"
        ]
        == 1.0
    )


# --- sequence labeling ---

SEQ_GOLD = [
    {"input": ["John", "lives", "here"], "target": ["B-PER", "O", "O"]},
    {"input": ["Visit", "New", "York"], "target": ["O", "B-LOC", "I-LOC"]},
]
SEQEVAL = EvaluationMetricConfig(hf_id="seqeval")


def test_sequence_labeling_list_and_string_predictions():
    as_lists = _evaluate([["B-PER", "O", "O"], ["O", "B-LOC", "I-LOC"]], SEQ_GOLD, "sequence_labeling", [SEQEVAL])
    as_strings = _evaluate(["B-PER,O,O", "O, B-LOC, I-LOC\n"], SEQ_GOLD, "sequence_labeling", [SEQEVAL])
    assert as_lists == as_strings
    assert as_lists["hf_seqeval__overall_f1"] == 1.0
    # Nested per-entity scores are flattened; the support count is not a score and stays out.
    assert {k: v for k, v in as_lists.items() if k.startswith("hf_seqeval__PER")} == {
        "hf_seqeval__PER__precision": 1.0,
        "hf_seqeval__PER__recall": 1.0,
        "hf_seqeval__PER__f1": 1.0,
    }
    assert all(type(v) is float for v in as_lists.values())
    builder = PromptBuilderConfig(sequence_labeling_separator=" ")
    spaced = _evaluate(
        ["B-PER O O", "O B-LOC I-LOC"], SEQ_GOLD, "sequence_labeling", [SEQEVAL], prompt_builder=builder
    )
    assert spaced == as_lists


@pytest.mark.filterwarnings("ignore::UserWarning")  # seqeval: precision ill-defined with no predicted entity
def test_sequence_labeling_wrong_lengths_are_padded_or_truncated():
    result = _evaluate(["B-PER", "O,B-LOC,I-LOC,O,B-PER"], SEQ_GOLD, "sequence_labeling", [SEQEVAL])
    # "B-PER" -> B-PER O O (right); the long one is truncated to O B-LOC I-LOC (right)
    assert result["hf_seqeval__overall_f1"] == 1.0
    result = _evaluate(["", ["O"]], SEQ_GOLD, "sequence_labeling", [SEQEVAL])
    # both padded with O: no entity found
    assert result["hf_seqeval__overall_recall"] == 0.0
    assert result["hf_seqeval__overall_accuracy"] == pytest.approx(3 / 6)


# --- raw vs prepared gold ---


def test_prepared_gold_uses_original_target():
    import datasets

    raw = _mc_gold([0, 1])
    prepared = [
        {
            "input": "Q: q0\nA: ",
            "target": "yes",
            "original_input": "q0",
            "original_target": 0,
            "target_options": OPTIONS,
            "_genbench_idx": 0,
        },
        {
            "input": "Q: q1\nA: ",
            "target": "no",
            "original_input": "q1",
            "original_target": 1,
            "target_options": OPTIONS,
            "_genbench_idx": 1,
        },
    ]
    for gold in (raw, prepared, datasets.Dataset.from_list(raw), datasets.Dataset.from_list(prepared)):
        assert _evaluate([0, "yes"], gold)["hf_accuracy__accuracy"] == 0.5


def test_prepared_sequence_labeling_gold_uses_the_label_list():
    import datasets

    prepared = datasets.Dataset.from_list(
        [
            {
                "input": "Q: John lives here\nA: ",
                "target": "B-PER,O,O",
                "original_input": ["John", "lives", "here"],
                "original_target": ["B-PER", "O", "O"],
                "_genbench_idx": 0,
            }
        ]
    )
    assert _evaluate(["B-PER,O,O"], prepared, "sequence_labeling", [SEQEVAL])["hf_seqeval__overall_f1"] == 1.0


def test_dataset_gold_is_read_by_column_not_by_row(monkeypatch):
    import datasets

    gold = datasets.Dataset.from_list(_mc_gold([0, 1, 1, 0])).shuffle(seed=3)
    expected_targets = gold.to_dict()["target"]
    original_getitem = datasets.Dataset.__getitem__

    def no_row_access(self, key):
        if isinstance(key, int):
            raise AssertionError("gold read row by row")
        return original_getitem(self, key)

    monkeypatch.setattr(datasets.Dataset, "__getitem__", no_row_access)
    result = _evaluate(expected_targets, gold)
    assert result["hf_accuracy__accuracy"] == 1.0


def test_gold_without_target():
    import datasets

    with pytest.raises(PredictionError, match="no 'target' column"):
        _evaluate(["a"], datasets.Dataset.from_list([{"input": "a"}]), "free_form")
    with pytest.raises(PredictionError, match=r"gold\[0\] has no 'target' key"):
        _evaluate(["a"], [{"input": "a"}], "free_form")


# --- prediction errors ---


def test_predictions_not_a_list():
    with pytest.raises(PredictionError, match="predictions must be a list of mappings.*got a dict"):
        evaluate_predictions(
            predictions={"target": "a"}, gold=[{"target": "a"}], task_type="free_form", metrics=[EXACT_MATCH]
        )


def test_length_mismatch_gives_both_lengths():
    with pytest.raises(PredictionError, match="Got 1 predictions for 2 gold examples"):
        _evaluate(["a"], [{"target": "a"}, {"target": "b"}], "free_form")


def test_element_not_a_mapping_gives_the_first_index():
    with pytest.raises(PredictionError, match=r"predictions\[1\] is a str \('b'\), expected a mapping.*2 of 3"):
        evaluate_predictions(
            predictions=[{"target": "a"}, "b", "c"],
            gold=[{"target": "a"}] * 3,
            task_type="free_form",
            metrics=[EXACT_MATCH],
        )


def test_missing_target_key_gives_the_first_index():
    with pytest.raises(PredictionError, match=r"predictions\[2\] has no 'target' key \(its keys: answer\)"):
        evaluate_predictions(
            predictions=[{"target": "a"}, {"target": "b"}, {"answer": "c"}],
            gold=[{"target": "a"}] * 3,
            task_type="free_form",
            metrics=[EXACT_MATCH],
        )


@pytest.mark.parametrize(
    ("task_type", "predictions", "index", "found", "expected"),
    [
        ("free_form", ["a", "b", 3], 2, "an int (3)", "expected a str for a free_form task"),
        ("free_form", ["a", None, "c"], 1, "a NoneType (None)", "expected a str"),
        ("multiple_choice", [0, 1, True], 2, "a bool (True)", "expected an int (option index) or a str"),
        ("multiple_choice", [0, 1.0, 1], 1, "a float (1.0)", "for a multiple_choice task"),
        ("sequence_labeling", [["O"], [1, 2], ["O"]], 1, "a list ([1, 2])", "expected a list of str labels"),
        ("sequence_labeling", [["O"], ["O"], 5], 2, "an int (5)", "for a sequence_labeling task"),
    ],
)
def test_wrong_type_names_index_found_and_expected(task_type, predictions, index, found, expected):
    if task_type == "multiple_choice":
        gold = _mc_gold([0, 1, 1])
    elif task_type == "sequence_labeling":
        gold = [{"input": ["w"], "target": ["O"]}] * 3
    else:
        gold = [{"input": "q", "target": "a"}] * 3
    with pytest.raises(PredictionError) as info:
        _evaluate(predictions, gold, task_type)
    message = str(info.value)
    assert f"predictions[{index}]['target'] is {found}" in message
    assert expected in message
    assert "1 of 3 predictions" in message


def test_every_prediction_is_checked_not_only_the_first():
    gold = [{"input": "q", "target": "a"}] * 4
    with pytest.raises(PredictionError, match=r"predictions\[3\]\['target'\] is an int"):
        _evaluate(["a", "b", "c", 4], gold, "free_form")
