"""Prompt-based testing: format examples, pick few-shot examples, build zero- and few-shot prompt datasets.

``import genbench.prompting`` imports NumPy only; ``datasets`` and ``pyarrow`` are imported when a function runs.
"""

from genbench.prompting._builder import Prompts, build_prompt_datasets, build_prompts
from genbench.prompting._few_shot import few_shot_pool, sample_shot_ids
from genbench.prompting._formatting import FormattedExamples, format_examples, format_examples_with

__all__ = [
    "FormattedExamples",
    "Prompts",
    "build_prompt_datasets",
    "build_prompts",
    "few_shot_pool",
    "format_examples",
    "format_examples_with",
    "sample_shot_ids",
]
