"""JSON Schema export of ``config.jsonnet``, for editor autocompletion and the docs' field table."""

from __future__ import annotations

import json
from typing import Any

from genbench.config._schema import TaskConfig, TaskDictConfig


def task_config_json_schema(task_dict: bool = False) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a task's (or a TaskDict's) ``config.jsonnet``.

    >>> schema = task_config_json_schema()
    >>> schema["additionalProperties"], sorted(schema["required"])[:3]
    (False, ['authors', 'data_source', 'description'])
    """
    model = TaskDictConfig if task_dict else TaskConfig
    schema = model.model_json_schema(mode="validation")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "GenBench TaskDict config" if task_dict else "GenBench task config"
    return schema


def task_config_json_schema_text(task_dict: bool = False) -> str:
    """The JSON Schema as indented JSON text."""
    return json.dumps(task_config_json_schema(task_dict), indent=2, sort_keys=False) + "\n"
