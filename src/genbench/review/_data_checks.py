"""Checks of a task's data: the split file, the splits it declares, the examples' types, duplicates and leaks.

Each check takes the loaded :class:`~genbench.Task` and reads its raw datasets (``task.get_datasets_raw()``, computed
once per task object).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from genbench._core.errors import ConfigError
from genbench._core.vocabulary import TaskType, split_name
from genbench.data import load_split_file, resplit
from genbench.review._base import TaskCheckFailure, TaskCheckSkipped, TaskCheckWarning, kind, plural, short
from genbench.review._static_checks import describe_error

SPLITS = ("train", "validation", "test")
IDX = "_genbench_idx"
# At most this many offending pairs are listed in a message (the total is always given).
MAX_LISTED = 5

_DATA_HINT = (
    "Check data_source (paths are relative to the task directory), field_mapping and split_file in config.jsonnet, "
    "and format_example / get_datasets_raw if task.py overrides them."
)


def check_split_file(task: Any) -> None:
    """The config's ``split_file`` exists, is well-formed, and every ``"split:index"`` entry names an existing
    example of the data source.

    Raises:
        TaskCheckFailure: the file is missing or malformed, or entries do not resolve (all listed at once).
        TaskCheckSkipped: the task has no ``split_file``, or its data source cannot be loaded (see data_loads).
    """
    split_file = task.config.split_file
    if split_file is None:
        raise TaskCheckSkipped("the config has no split_file")
    path = Path(task.task_dir) / split_file
    if not path.is_file():
        raise TaskCheckFailure(
            f"config.jsonnet sets split_file: {split_file!r}, but {path} does not exist. Add the file, fix the "
            "name, or remove split_file to keep the data source's own splits."
        )
    try:
        spec = load_split_file(path)
    except ConfigError as error:
        raise TaskCheckFailure(
            f"{split_file} is invalid:\n{error}\nIt must be an object mapping split names to lists of "
            "'split:index' strings, e.g. {train: ['train:0', 'test:4'], test: ['test:1']}."
        ) from None
    try:
        source = task._load_data_source()
    except Exception as error:  # noqa: BLE001 - reported by data_loads
        raise TaskCheckSkipped(
            f"the data source could not be loaded ({describe_error(error, task.task_dir)}; see the data_loads check)"
        ) from None
    try:
        resplit(source, spec, file=str(path))
    except ConfigError as error:
        raise TaskCheckFailure(
            f"{split_file} has entries that name no example of the data source "
            f"({plural(len(error.problems), 'problem')}):\n{error}\nIndices count from 0 within each source split."
        ) from None


def check_data_loads(task: Any) -> dict[str, Any]:
    """``task.get_datasets_raw()`` works and returns a mapping of split names to datasets.

    Returns:
        The raw datasets, keyed by split name.

    Raises:
        TaskCheckFailure: loading, re-splitting or formatting failed (with the error), or the result is not a
            mapping.
    """
    try:
        raw = task.get_datasets_raw()
    except Exception as error:  # noqa: BLE001 - a task's own code may raise anything; report it
        raise TaskCheckFailure(
            f"Loading the task's data failed: {describe_error(error, task.task_dir)}\n{_DATA_HINT}"
        ) from None
    if not isinstance(raw, Mapping):
        raise TaskCheckFailure(
            f"get_datasets_raw() returned {kind(raw)}, expected a dict mapping split names ('train', "
            "'validation', 'test') to datasets.Dataset objects."
        )
    return {split_name(key): value for key, value in raw.items()}


def _raw(task: Any) -> dict[str, Any]:
    return {split_name(key): value for key, value in task.get_datasets_raw().items()}


def raw_datasets(task: Any) -> dict[str, Any]:
    """The raw splits, when each is a ``datasets.Dataset`` (else the check is skipped: no_iterable_dataset fails)."""
    from datasets import Dataset

    raw = _raw(task)
    for split, dataset in raw.items():
        if not isinstance(dataset, Dataset):
            raise TaskCheckSkipped(f"the {split} split is not a datasets.Dataset (see the no_iterable_dataset check)")
    return raw


def test_split(task: Any) -> Any:
    raw = raw_datasets(task)
    if "test" not in raw:
        raise TaskCheckSkipped("there is no test split (see the declared_splits check)")
    return raw["test"]


def _size(dataset: Any) -> str:
    try:
        return plural(len(dataset), "example")
    except TypeError:  # an IterableDataset
        return f"a {type(dataset).__name__}"


def check_declared_splits(task: Any) -> None:
    """The splits match the config: a ``test`` split always, ``train`` exactly when ``has_train_set`` and
    ``validation`` exactly when ``has_validation_set``; none of them empty.

    Splits with other names (made by a ``split_file``) give a warning: prompt preparation ignores them.

    Raises:
        TaskCheckFailure: listing every mismatch.

    >>> from genbench import load_task
    >>> task = load_task("arithmetic_length")
    >>> check_declared_splits(task)
    >>> check_example_types(task)
    """
    import warnings

    raw = _raw(task)
    names = ", ".join(f"{name} ({_size(ds)})" for name, ds in raw.items()) or "none"
    problems = []
    if "test" not in raw:
        problems.append(
            "there is no test split: every task needs one (data_source.test in config.jsonnet, or a `test` "
            "list in the split file)"
        )
    for split, flag in (("train", "has_train_set"), ("validation", "has_validation_set")):
        declared = getattr(task.config, flag)
        if declared and split not in raw:
            problems.append(
                f"{flag} is true in config.jsonnet but there is no {split} split: add data_source.{split} (or a "
                f"`{split}` list in the split file), or set {flag}: false"
            )
        elif not declared and split in raw:
            problems.append(
                f"there is a {split} split ({_size(raw[split])}) but {flag} is false (its "
                f"default) in config.jsonnet: set {flag}: true, or remove the {split} data"
            )
    problems += [
        f"the {name} split is empty: add examples or remove the split"
        for name, dataset in raw.items()
        if name in SPLITS and _size(dataset) == "0 examples"
    ]
    if problems:
        raise TaskCheckFailure(
            f"The task's splits do not match its config (splits: {names}):\n" + "\n".join(f"  - {p}" for p in problems)
        )
    extra = [name for name in raw if name not in SPLITS]
    if extra:
        warnings.warn(
            f"Split{'s' if len(extra) > 1 else ''} {', '.join(repr(n) for n in extra)} "
            f"{'are' if len(extra) > 1 else 'is'} not train, validation or test: finetuning returns "
            f"{'them' if len(extra) > 1 else 'it'} as is, but prompt-based testing uses only the test split.",
            TaskCheckWarning,
            2,
        )


def check_no_iterable_dataset(task: Any) -> None:
    """Every raw split is a plain ``datasets.Dataset``, not an ``IterableDataset`` (a streamed dataset has no
    length and cannot be indexed, shuffled for shots, or checked).

    Raises:
        TaskCheckFailure: naming each split of the wrong type.
    """
    from datasets import Dataset, IterableDataset

    problems = []
    for split, dataset in _raw(task).items():
        if isinstance(dataset, IterableDataset):
            problems.append(f"the {split} split is a datasets.IterableDataset (a streamed dataset)")
        elif not isinstance(dataset, Dataset):
            problems.append(f"the {split} split is a {type(dataset).__name__}")
    if problems:
        raise TaskCheckFailure(
            "Every split must be a datasets.Dataset:\n"
            + "\n".join(f"  - {p}" for p in problems)
            + "\nDo not load the data with streaming=True; turn an IterableDataset into a Dataset with "
            "`Dataset.from_generator(lambda: (yield from iterable_dataset))`."
        )


def _columns(dataset: Any, wanted: list[str]) -> dict[str, list[Any]]:
    present = [name for name in wanted if name in dataset.column_names]
    return dataset.select_columns(present).to_dict() if present else {}


def _ids(data: Mapping[str, list[Any]], size: int) -> list[str]:
    if IDX in data:
        return [f"_genbench_idx {value}" for value in data[IDX]]
    return [f"row {row}" for row in range(size)]


def _is_str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _is_index(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _example_problem(task_type: TaskType, input_: Any, target: Any, options: Any, has_options: bool) -> str | None:
    if task_type is TaskType.FREE_FORM:
        if not isinstance(input_, str):
            return f"input is {kind(input_)}, expected a str"
        if not isinstance(target, str):
            return f"target is {kind(target)}, expected a str (write numbers as text, e.g. '42')"
        return None
    if task_type is TaskType.MULTIPLE_CHOICE:
        if not isinstance(input_, str):
            return f"input is {kind(input_)}, expected a str"
        if not _is_index(target):
            return f"target is {kind(target)}, expected an int: the index of the correct option"
        if not has_options:
            return None if target >= 0 else f"target is {target}, expected an index >= 0"
        if not _is_str_list(options) or not options:
            return f"target_options is {kind(options)}, expected a non-empty list of str"
        if not 0 <= target < len(options):
            count = plural(len(options), "option")
            return f"target is {target}, but the example has {count} (valid: 0..{len(options) - 1})"
        return None
    if task_type is TaskType.RERANKING:
        if not isinstance(input_, str):
            return f"input is {kind(input_)}, expected a str (the query)"
        if not _is_str_list(target):
            return f"target is {kind(target)}, expected a list of str (the relevant documents)"
        if not _is_str_list(options) or not options:
            return f"target_options is {kind(options)}, expected a non-empty list of str (the candidates)"
        if len(set(options)) != len(options):
            return "target_options lists a candidate twice; each candidate gets one score"
        return None
    if not _is_str_list(input_):
        return f"input is {kind(input_)}, expected a list of str (the tokens)"
    if not _is_str_list(target):
        return f"target is {kind(target)}, expected a list of str (one label per token)"
    if len(input_) != len(target):
        return f"input has {plural(len(input_), 'token')} but target has {plural(len(target), 'label')}"
    return None


_TYPE_SPECS = {
    TaskType.FREE_FORM: "input a str and target a str",
    TaskType.MULTIPLE_CHOICE: "input a str, target an int index into the example's target_options (a list of str)",
    TaskType.SEQUENCE_LABELING: "input a list of str (tokens) and target a list of str (labels) of the same length",
    TaskType.RERANKING: "input a str (query), target a list of str (relevant documents), target_options a "
    "non-empty list of distinct str (candidates)",
}


def check_example_types(task: Any) -> None:
    """Every example of every split has the fields and types of the task type.

    - ``free_form``: ``input`` a str, ``target`` a str.
    - ``multiple_choice``: ``input`` a str, ``target`` an int index into that example's ``target_options`` (a
      non-empty list of str). ``target_options`` may be absent only when the task has no prompt-based testing.
    - ``sequence_labeling``: ``input`` a list of str, ``target`` a list of str of the same length.
    - ``reranking``: ``input`` a str (query), ``target`` a list of str (relevant documents), ``target_options`` a
      non-empty list of distinct str (the candidates).

    Raises:
        TaskCheckFailure: per split, the first bad example (split and ``_genbench_idx``) and how many are bad.

    >>> from genbench import load_task
    >>> check_example_types(load_task("ner_unseen_entities"))  # sequence labeling: a list of labels per token list
    """
    task_type = TaskType(task.config.task_type)
    needs_options = task.config.preparation_strategies.prompt_based_testing is not None
    problems = []
    for split, dataset in raw_datasets(task).items():
        missing = [c for c in ("input", "target") if c not in dataset.column_names]
        if missing:
            problems.append(
                f"the {split} split has no {' or '.join(missing)} column (columns: {', '.join(dataset.column_names)})"
            )
            continue
        has_options = "target_options" in dataset.column_names
        if task_type is TaskType.MULTIPLE_CHOICE and not has_options and needs_options:
            problems.append(
                f"the {split} split has no target_options column: prompts of a multiple_choice task list the "
                "options, so map target_options in field_mapping (or return it from format_example)"
            )
            continue
        data = _columns(dataset, ["input", "target", "target_options", IDX])
        size = len(dataset)
        ids = _ids(data, size)
        options = data.get("target_options", [None] * size)
        inputs, targets = data["input"], data["target"]
        bad = [
            (row, problem)
            for row in range(size)
            if (problem := _example_problem(task_type, inputs[row], targets[row], options[row], has_options))
        ]
        if bad:
            row, problem = bad[0]
            problems.append(
                f"{split} split, example {ids[row]}: {problem}; {len(bad)} of {plural(size, 'example')} in {split} "
                f"{'has' if len(bad) == 1 else 'have'} a problem"
            )
    if problems:
        raise TaskCheckFailure(
            "Examples do not match the task type "
            f"{task_type.value!r} ({_TYPE_SPECS[task_type]}):\n"
            + "\n".join(f"  - {p}" for p in problems)
            + "\nFix the data, or the field_mapping / format_example that builds input and target."
        )


def _freeze(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return tuple(_freeze(item) for item in value)
    if isinstance(value, dict):
        return tuple(sorted((key, _freeze(item)) for key, item in value.items()))
    return value


def _example_keys(dataset: Any, *, with_target: bool) -> tuple[list[Any], list[str]]:
    """One hashable key per example: its input (and target), plus its options for multiple choice (the model sees
    them as part of the question)."""
    wanted = ["input", "target", "target_options", IDX] if with_target else ["input", "target_options", IDX]
    data = _columns(dataset, wanted)
    if "input" not in data:
        raise TaskCheckSkipped("an example has no input (see the example_types check)")
    size = len(dataset)
    fields = [name for name in ("input", "target", "target_options") if name in data]
    keys = [tuple(_freeze(data[name][row]) for name in fields) for row in range(size)]
    return keys, _ids(data, size)


def check_no_duplicates(task: Any) -> None:
    """No split holds the same example twice (same input and target; for multiple choice also the same options).

    A repeat in the test split counts twice in every score, so it fails. A repeat in the train or validation split
    only weighs that example more in training (natural corpora have some), so it gives a warning.

    Raises:
        TaskCheckFailure: the test split has repeats: the first repeated example with both ids, and their number.
    """
    import warnings

    failures: list[str] = []
    notes: list[str] = []
    for split, dataset in raw_datasets(task).items():
        keys, ids = _example_keys(dataset, with_target=True)
        first_seen: dict[Any, int] = {}
        repeats = []
        for row, key in enumerate(keys):
            if key in first_seen:
                repeats.append((first_seen[key], row))
            else:
                first_seen[key] = row
        if repeats:
            first, row = repeats[0]
            line = (
                f"{split} split: example {ids[row]} repeats example {ids[first]} (input {short(keys[row][0])}); "
                f"{plural(len(repeats), 'repeated example')} in {split}"
            )
            (notes if split in ("train", "validation") else failures).append(line)
    if failures:
        raise TaskCheckFailure(
            "Duplicate examples:\n"
            + "\n".join(f"  - {p}" for p in failures + notes)
            + "\nA repeated test example counts twice in every score: remove the repeats from the data (or the "
            "repeated entries from the split file)."
        )
    if notes:
        warnings.warn(
            "Duplicate training examples:\n"
            + "\n".join(f"  - {p}" for p in notes)
            + "\nRepeats weigh those examples more in training; remove them unless that is intended.",
            TaskCheckWarning,
            2,
        )


def check_test_overlap(task: Any) -> None:
    """No test example has exactly the input of a train or validation example (for multiple choice: the same input
    and options): a test example seen in training cannot measure generalisation.

    Raises:
        TaskCheckFailure: naming the first overlapping pairs (test id and train/validation id) and their number.
    """
    test = test_split(task)
    raw = raw_datasets(task)
    seen: dict[Any, str] = {}
    for split in ("train", "validation"):
        if split in raw:
            keys, ids = _example_keys(raw[split], with_target=False)
            for key, example_id in zip(keys, ids, strict=True):
                seen.setdefault(key, f"{split} example {example_id}")
    if not seen:
        raise TaskCheckSkipped("the task has no train or validation split")
    test_keys, test_ids = _example_keys(test, with_target=False)
    overlaps = [
        f"test example {example_id} has the input of {seen[key]} ({short(key[0], 60)})"
        for key, example_id in zip(test_keys, test_ids, strict=True)
        if key in seen
    ]
    if overlaps:
        listed = "\n".join(f"  - {line}" for line in overlaps[:MAX_LISTED])
        more = f"\n  ... and {len(overlaps) - MAX_LISTED} more" if len(overlaps) > MAX_LISTED else ""
        raise TaskCheckFailure(
            f"{plural(len(overlaps), 'test example')} of {len(test_keys)} also "
            f"occur{'s' if len(overlaps) == 1 else ''} in the train or validation split:\n{listed}{more}\n"
            "A model may have seen these in training, so they cannot measure generalisation: remove them from one "
            "of the splits."
        )


OVERLAP_NGRAM_SIZE = 8
OVERLAP_THRESHOLD = 0.5


def check_ngram_overlap(task: Any) -> None:
    """Warn when test inputs share most of their 8-grams with a train or validation input (the few-shot pool is one
    of them), with the rules of the contamination checks: near-duplicates leak answers as exact ones do.

    Warns:
        TaskCheckWarning: per split, the number of test examples whose 8-gram overlap with one example of the split
            is above 0.5, and the first pairs.
    """
    import warnings

    from genbench.contamination._task_checks import split_overlap

    if not any(split in raw_datasets(task) for split in ("train", "validation")):
        raise TaskCheckSkipped("the task has no train or validation split")
    overlaps = split_overlap(task, ngram_size=OVERLAP_NGRAM_SIZE, threshold=OVERLAP_THRESHOLD)
    if overlaps and all(o.test_size and o.unmatchable == o.test_size for o in overlaps):
        raise TaskCheckSkipped(
            f"every test input has fewer than {OVERLAP_NGRAM_SIZE} tokens, so no {OVERLAP_NGRAM_SIZE}-gram can be "
            "shared (test_overlap checks for exact copies)"
        )
    for overlap in overlaps:
        if overlap.pairs:
            listed = "\n".join(
                f"  - test example {t} and {overlap.split} example {o}: {score:.0%} of its tokens in shared 8-grams"
                for t, o, score in overlap.pairs[:MAX_LISTED]
            )
            warnings.warn(
                f"{plural(len(overlap.pairs), 'test example')} of {overlap.test_size} share more than "
                f"{OVERLAP_THRESHOLD:.0%} of their tokens, in {OVERLAP_NGRAM_SIZE}-grams, with a {overlap.split} "
                f"example:\n{listed}\nCheck that they are not near-duplicates.",
                TaskCheckWarning,
                stacklevel=2,
            )


def is_overridden(task: Any, method: str) -> bool:
    """Whether the task's class (or one of its own bases) overrides a ``Task`` method, looking through the MRO.

    >>> from genbench import load_task
    >>> is_overridden(load_task("arithmetic_length"), "evaluate_predictions")
    False
    """
    from genbench.task import Task

    return getattr(type(task), method, None) is not getattr(Task, method)
