"""Task configuration: the typed schema, sandboxed jsonnet loading, leniency, validation and JSON Schema export."""

from genbench.config._documents import (
    collect_config_warnings,
    load_task_config,
    load_task_dict_config,
    task_config_from_dict,
)
from genbench.config._json_schema import task_config_json_schema
from genbench.config._jsonnet import evaluate_jsonnet, load_jsonnet
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

__all__ = [
    "ContaminationCheckConfig",
    "DataSourceConfig",
    "EvaluationMetricConfig",
    "FinetuningStrategyConfig",
    "PreparationStrategiesConfig",
    "PromptBasedTestingConfig",
    "PromptBuilderConfig",
    "TaskConfig",
    "TaskDictConfig",
    "TaxonomyConfig",
    "collect_config_warnings",
    "evaluate_jsonnet",
    "load_jsonnet",
    "load_task_config",
    "load_task_dict_config",
    "task_config_from_dict",
    "task_config_json_schema",
]
