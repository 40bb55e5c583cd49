"""The one JSON depth counter (genbench._core.json_depth), behind the strict reader and pyarrow's guard."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from genbench._core import json_depth
from genbench.data._json_nesting import max_nesting

# Strings full of what the counter must see through: brackets, quotes, backslashes, non-ASCII.
TEXT = st.text(alphabet='[]{}"\\ab\u00e9\u4e2d\n', max_size=8)
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | TEXT,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(TEXT, children, max_size=4),
    max_leaves=40,
)


def depth(value: Any) -> int:
    if isinstance(value, list):
        return 1 + max((depth(item) for item in value), default=0)
    if isinstance(value, dict):
        return 1 + max((depth(item) for item in value.values()), default=0)
    return 0


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(value=VALUES, indent=st.sampled_from([None, 2]), ascii_only=st.booleans())
def test_the_depth_of_valid_json_is_exact(value: Any, indent: int | None, ascii_only: bool) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    assert json_depth.max_depth(text) == depth(value)
    assert json_depth.max_depth(text.encode("utf-8")) == depth(value)
    assert max_nesting(json.dumps(value, ensure_ascii=ascii_only).encode("utf-8")) == depth(value)  # one line


@pytest.mark.parametrize("peel", [True, False])
def test_deep_and_long_texts_are_counted_with_or_without_peeling(peel: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if not peel:
        monkeypatch.setattr(json_depth, "_PEEL_BYTES", 0)
    monkeypatch.setattr(json_depth, "_CHUNK", 7)  # the running sum carries over chunk ends
    chains = "[" + ",".join(["[" * 30 + '"]]"' + "]" * 30] * 5) + "]"
    assert json_depth.max_depth(chains) == 31
    assert json_depth.max_depth(chains, stop_above=10) > 10
    assert json_depth.max_depth("[" * 50) == 50  # never closed: still that deep when a parser gets there
    assert json_depth.max_depth('"[[[' + "[" * 50) == 0  # all inside an unclosed string
    assert json_depth.nests_deeper_than(chains, 30) and not json_depth.nests_deeper_than(chains, 31)
