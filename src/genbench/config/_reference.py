"""The config reference table of the docs, generated from the schema so the two cannot drift."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from genbench._core.generated_docs import replace_generated_block
from genbench.config._schema import (
    ContaminationCheckConfig,
    DataSourceConfig,
    EvaluationMetricConfig,
    FinetuningStrategyConfig,
    PreparationStrategiesConfig,
    PromptBasedTestingConfig,
    PromptBuilderConfig,
    TaskConfig,
    TaskDictConfig,
)
from genbench.config._taxonomy_block import TaxonomyConfig

SECTIONS: list[tuple[str, type[BaseModel]]] = [
    ("Task config (`config.jsonnet`)", TaskConfig),
    ("`data_source`", DataSourceConfig),
    ("`evaluation_metrics[]`", EvaluationMetricConfig),
    ("`contamination_checks[]`", ContaminationCheckConfig),
    ("`preparation_strategies`", PreparationStrategiesConfig),
    ("`preparation_strategies.finetuning`", FinetuningStrategyConfig),
    ("`preparation_strategies.prompt_based_testing`", PromptBasedTestingConfig),
    ("`preparation_strategies.prompt_based_testing.prompt_builder`", PromptBuilderConfig),
    ("`taxonomy`", TaxonomyConfig),
    ("TaskDict config (`config.jsonnet` of a task with subtasks)", TaskDictConfig),
]


def _type_of(prop: dict[str, Any], defs: dict[str, Any]) -> str:
    if "$ref" in prop:
        target = defs.get(prop["$ref"].rsplit("/", 1)[-1], {})
        return _type_of(target, defs) if "enum" in target else "object"
    if "enum" in prop:
        return " \\| ".join(repr(v) for v in prop["enum"])
    if "const" in prop:
        return repr(prop["const"])
    if "anyOf" in prop:
        return " \\| ".join(dict.fromkeys(_type_of(p, defs) for p in prop["anyOf"]))
    kind = prop.get("type")
    if kind == "array":
        return f"list of {_type_of(prop.get('items', {}), defs)}"
    if kind == "object":
        return "object" if "additionalProperties" not in prop else "mapping"
    names = {"string": "string", "boolean": "bool", "number": "number", "integer": "int", "null": "null"}
    return names.get(str(kind), "any")


def _default(model: type[BaseModel], name: str) -> str:
    field = model.model_fields[name]
    if field.is_required():
        return "**required**"
    if field.default_factory is not None:
        return "defaults"
    if field.default is PydanticUndefined or field.default is None:
        return "—"
    value = field.default.value if hasattr(field.default, "value") else field.default
    return f"`{json.dumps(value)}`"


def config_reference_markdown() -> str:
    """Markdown tables of every config field: name, type, default and description.

    >>> "| `input_prefix` | string | `\\"Q: \\"` |" in config_reference_markdown()
    True
    """
    lines: list[str] = []
    for title, model in SECTIONS:
        schema = model.model_json_schema()
        defs = schema.get("$defs", {})
        lines += [f"### {title}", "", "| field | type | default | description |", "|---|---|---|---|"]
        for name, prop in schema["properties"].items():
            description = (prop.get("description") or "").replace("|", "\\|").replace("\n", " ")
            lines.append(f"| `{name}` | {_type_of(prop, defs)} | {_default(model, name)} | {description} |")
        lines.append("")
    return "\n".join(lines)


BEGIN_MARKER = "<!-- BEGIN GENERATED CONFIG REFERENCE (python -m genbench.config._reference docs/config.md) -->"
END_MARKER = "<!-- END GENERATED CONFIG REFERENCE -->"


def update_reference_block(text: str) -> str:
    """Replace the generated block between the markers of a markdown document with the current reference.

    Raises:
        ValueError: the document lacks the markers.
    """
    return replace_generated_block(text, BEGIN_MARKER, END_MARKER, config_reference_markdown())


if __name__ == "__main__":  # pragma: no cover - a maintenance command
    import sys

    from genbench._core.generated_docs import update_file

    update_file(sys.argv[1:], "docs/config.md", update_reference_block)
