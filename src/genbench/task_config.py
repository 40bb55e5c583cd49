"""Compatibility module: the original framework's ``genbench.task_config`` import path."""

from genbench.config.schema import (  # noqa: F401 - re-exported
    DataSourceConfig,
    EvaluationMetricConfig,
    FinetuningStrategyConfig,
    PreparationStrategiesConfig,
    PromptBasedTestingConfig,
    PromptBaseTestingConfig,
    PromptBuilderConfig,
    TaskConfig,
)
