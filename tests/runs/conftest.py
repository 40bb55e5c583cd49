"""Shared fixtures of the model-run tests: a tiny random GPT-2 with a word-level tokenizer, saved once per session.

The model is the ``tiny`` one of the ``run`` benchmarks (``benchmarks/_run_models.py``, the one definition of its
words, tokenizer and shape): tests and benchmarks run the very same files.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.benchmark_modules import benchmark_module


@pytest.fixture(scope="session")
def tiny_gpt2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A two-layer randomly initialised GPT-2 and a word-level tokenizer (newlines kept as tokens), no BOS token."""
    return benchmark_module("_run_models").build_model("tiny", tmp_path_factory.mktemp("tiny-gpt2"))


@pytest.fixture(scope="session")
def tiny_gpt2_bos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same weights, with a tokenizer that starts every encoding with a ``<s>`` BOS token (as Llama's does)."""
    return benchmark_module("_run_models").build_model("tiny-bos", tmp_path_factory.mktemp("tiny-gpt2-bos"))


@pytest.fixture(scope="session")
def tiny_gpt2_chat(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``tiny-bos`` with role-marker words and a chat template that starts with the BOS text (as an instruction-tuned
    model's tokenizer has), other random weights."""
    return benchmark_module("_run_models").build_model("tiny-chat", tmp_path_factory.mktemp("tiny-gpt2-chat"))
