"""The names of the original framework's ``genbench.task_config``, over :mod:`genbench.config._schema`."""

from genbench.config._schema import (
    DataSourceConfig,
    EvaluationMetricConfig,
    FinetuningStrategyConfig,
    PreparationStrategiesConfig,
    PromptBasedTestingConfig,
    PromptBuilderConfig,
    TaskConfig,
)

# The original's spelling of the prompt-based testing config class.
PromptBaseTestingConfig = PromptBasedTestingConfig

__all__ = [
    "DataSourceConfig",
    "EvaluationMetricConfig",
    "FinetuningStrategyConfig",
    "PreparationStrategiesConfig",
    "PromptBaseTestingConfig",
    "PromptBasedTestingConfig",
    "PromptBuilderConfig",
    "TaskConfig",
]
