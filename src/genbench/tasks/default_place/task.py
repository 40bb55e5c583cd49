"""The ``default_place`` task."""

from genbench import Task


class DefaultPlaceTask(Task):
    """Python implementation of the ``default_place`` task.

    By default, the task's config.jsonnet supports most use cases and there is nothing to do here. If the task
    needs custom logic, override any of these methods (see docs/creating_a_task.md for examples):

    - ``format_example(self, example) -> Mapping[str, Any]``: turn one raw example of the data source into the
      task's fields (``input``, ``target``, and ``target_options`` for multiple choice). Replaces
      ``field_mapping``.
    - ``get_datasets_raw(self) -> dict[str, datasets.Dataset]``: build the splits yourself (mix, filter or
      generate examples); by default the config's data source, re-split by ``split_file`` and formatted.
    - ``evaluate_predictions(self, *, predictions=None, gold=None) -> EvaluationResult``: score a list of
      predictions (one mapping with a ``target`` per gold example) against the gold dataset; by default the
      config's ``evaluation_metrics``, which are then ignored when you override it.
    - ``get_prepared_datasets(self, preparation_strategy, shot_list=None, random_seed=42)``: the datasets a model
      is run on (``{split: Dataset}`` for finetuning, ``{n_shots: Dataset}`` of prompts for prompt-based testing).

    Import what an override needs (``from collections.abc import Mapping``, ``from typing import Any``, ``from
    genbench.api import EvaluationResult``) and keep heavy imports such as ``datasets`` inside the method.
    """
