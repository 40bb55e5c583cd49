"""The results JSON Schema, generated from the typed model (:mod:`genbench.runs._results_model`).

The shipped ``results.schema.json`` is this module's output; a test fails when the two differ. Regenerate it with
``python -m genbench.runs._results_schema src/genbench/runs/results.schema.json``. See
docs/running_models.md#results-files.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from genbench.runs._results_model import OMITTABLE, ResultsDocument, Sample

SCHEMA_ID = "https://genbench.org/schemas/results-1.json"
SCHEMA_COMMENT = (
    "Schema version policy: a new optional field keeps schema_version (files written before it stay valid); a change "
    "that makes a valid file invalid or changes what a field means raises it. Optional since version 1: "
    "task.metric_directions (value 'zero' too), run_identity, run_identity.chat, merged_from, "
    "evaluation.bootstrap_pairing, ci_method bootstrap_merged."
)


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _without_null(options: list[Any]) -> list[Any]:
    return [option for option in options if option != {"type": "null"}]


def _tidy(node: Any) -> Any:
    """Drop titles and defaults, turn nullable ``anyOf`` into a ``type`` list, drop the null of omittable fields.

    pydantic writes a nullable field as ``anyOf: [X, {"type": "null"}]``; as ``"type": [X's type, "null"]`` (or
    ``null`` among an enum's values) a validator names the field's own problem ("is not of type 'array'") instead of
    "not valid under any of the given schemas". An omittable field may be left out, never be null. Definitions are
    named in snake_case (``#/$defs/sample``).
    """
    if isinstance(node, list):
        return [_tidy(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: value for key, value in node.items() if key not in ("title", "default")}
    if "const" in node:
        node.pop("type", None)  # implied by the constant
    omitted = node.pop(OMITTABLE, False)
    options = node.get("anyOf")
    if isinstance(options, list) and {"type": "null"} in options:
        rest = _without_null(options)
        nullable = not omitted
        if len(rest) == 1 and ("type" in rest[0] or "enum" in rest[0]) and "$ref" not in rest[0]:
            (only,) = rest
            node.pop("anyOf")
            merged = {**only, **node}
            if nullable and "enum" in merged:
                merged["enum"] = [*merged["enum"], None]
                merged.pop("type", None)
            elif nullable:
                merged["type"] = [merged["type"], "null"] if isinstance(merged["type"], str) else [
                    *merged["type"], "null"]  # fmt: skip
            node = merged
        elif len(rest) == 1 and not nullable:
            node.pop("anyOf")
            node = {**rest[0], **node}
        elif not nullable:
            node["anyOf"] = rest
    if "$ref" in node:
        node["$ref"] = "#/$defs/" + _snake(node["$ref"].rsplit("/", 1)[1])
    return {key: _tidy(value) for key, value in node.items()}


def results_schema() -> dict[str, Any]:
    """The results JSON Schema (draft 2020-12) of :class:`~genbench.runs._results_model.ResultsDocument`."""
    generated = ResultsDocument.model_json_schema(by_alias=True)
    definitions = generated.pop("$defs")
    definitions["Sample"] = Sample.model_json_schema(by_alias=True)
    generated.pop("description", None)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "genbench results file",
        "description": " ".join((ResultsDocument.__doc__ or "").split(">>>")[0].split()),
        "$comment": SCHEMA_COMMENT,
        **_tidy(generated),
        "$defs": {_snake(name): _tidy(definition) for name, definition in sorted(definitions.items())},
    }


def results_schema_json() -> str:
    """The schema as the shipped file holds it (indented, ending with a newline)."""
    return json.dumps(results_schema(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":  # python -m genbench.runs._results_schema FILE
    Path(sys.argv[1]).write_text(results_schema_json(), encoding="utf-8")
