"""Fuzzed config.jsonnet documents and split files, for every task type (see test_fuzz_tasks for the flow).

* configs: a valid config of each task type with fields replaced by other JSON values (wrong types, unicode, NUL
  bytes, NaN, huge numbers, paths out of the directory, nested values), deleted or added; written as JSON text,
  sometimes in another encoding, cut short or with a NUL byte or stray bytes;
* split files: ``split_file`` documents naming rows that exist or not, duplicated, of the wrong type or split.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from .harness import FUZZ, dumps, encoded, genbench_error_or_success, json_values, mutated, texts
from .test_fuzz_tasks import TYPES, config_of, fuzz_task, run_task, write_rows


@pytest.mark.parametrize("kind", list(TYPES))
@FUZZ
@given(data=st.data())
def test_fuzzed_configs(kind: str, data: st.DataObject):
    config = data.draw(mutated(config_of(kind)), label="config")
    content = data.draw(encoded(dumps(config)), label="config.jsonnet bytes")
    with fuzz_task() as (task_dir, task_id):
        (task_dir / "config.jsonnet").write_bytes(content)
        write_rows(task_dir / "train.jsonl", TYPES[kind]["rows"])
        write_rows(task_dir / "test.jsonl", TYPES[kind]["rows"])
        genbench_error_or_success(f"configs[{kind}]", lambda: run_task(task_id))


split_ids = st.one_of(
    st.builds(
        lambda split, n: f"{split}:{n}", st.sampled_from(["train", "test", "validation", "x"]), st.integers(-2, 6)
    ),
    texts,
    json_values,
)
split_documents = st.one_of(
    st.dictionaries(
        st.sampled_from(["train", "validation", "test"]) | texts, st.lists(split_ids, max_size=6), max_size=4
    ),
    json_values,
)


@pytest.mark.parametrize("kind", ["free_form", "multiple_choice"])
@FUZZ
@given(data=st.data())
def test_fuzzed_split_files(kind: str, data: st.DataObject):
    document = data.draw(split_documents, label="split.jsonnet")
    content = data.draw(encoded(dumps(document)), label="split.jsonnet bytes")
    config = {**config_of(kind), "split_file": "split.jsonnet", "has_validation_set": True}
    with fuzz_task() as (task_dir, task_id):
        (task_dir / "config.jsonnet").write_text(dumps(config), encoding="utf-8")
        write_rows(task_dir / "train.jsonl", TYPES[kind]["rows"])
        write_rows(task_dir / "test.jsonl", TYPES[kind]["rows"])
        (task_dir / "split.jsonnet").write_bytes(content)
        genbench_error_or_success(f"split files[{kind}]", lambda: run_task(task_id))
