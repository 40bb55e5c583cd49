"""Fixtures of the reranking tests: tiny seeded cross-encoders built offline, and sample data."""

from __future__ import annotations

import json
import re

import pytest

from genbench.reranking._nano_beir_suite import demo_suite_path

WORDS = (
    "what how why is are the a of to and in for on with do does can which who when where should best time "
    "cat cats dog dogs sleep play food eat run walk garden tomato star planet moon sun water soil light night "
    "red blue green big small fast slow river sea city music book read write code bug fix test model data "
)


def _vocabulary() -> dict[str, int]:
    """Special tokens, then every word of the demo suite and of the test texts, in sorted order."""
    words = set(WORDS.split())
    for path in sorted(demo_suite_path().glob("Nano*/*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if isinstance(row.get("text"), str):
                words.update(re.findall(r"[a-z0-9]+", row["text"].lower()))
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    return {token: index for index, token in enumerate(specials + sorted(words))}


def _build_cross_encoder(directory, num_labels: int, seed: int) -> str:
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    vocab = _vocabulary()
    # transformers 5 ignores vocab_file=; the vocabulary is passed as a dict.
    tokenizer = BertTokenizerFast(vocab=vocab, do_lower_case=True)
    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
        initializer_range=0.5,
        num_labels=num_labels,
    )
    model = BertForSequenceClassification(config)
    model.eval()
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return str(directory)


@pytest.fixture(scope="session")
def st_evaluation():
    """sentence-transformers' cross-encoder evaluators, the reference: imported by the tests that use it, not at
    collection (importing sentence-transformers takes seconds)."""
    from sentence_transformers.cross_encoder import evaluation

    return evaluation


@pytest.fixture(scope="session")
def cross_encoder_path(tmp_path_factory) -> str:
    """Path of a saved 1-layer, hidden-size-32 BERT cross-encoder with one output (seeded)."""
    return _build_cross_encoder(tmp_path_factory.mktemp("ce1"), num_labels=1, seed=0)


@pytest.fixture(scope="session")
def cross_encoder(cross_encoder_path):
    """The one-output cross-encoder, loaded with ``sentence_transformers.CrossEncoder``."""
    from sentence_transformers import CrossEncoder

    return CrossEncoder(cross_encoder_path, device="cpu")


@pytest.fixture(scope="session")
def cross_encoder_3labels(tmp_path_factory):
    """A three-output cross-encoder (multi-class classification)."""
    from sentence_transformers import CrossEncoder

    return CrossEncoder(_build_cross_encoder(tmp_path_factory.mktemp("ce3"), num_labels=3, seed=1), device="cpu")


@pytest.fixture(scope="session")
def cross_encoder_2labels(tmp_path_factory):
    """A two-output cross-encoder (classified by arg-max, like the multi-class case)."""
    from sentence_transformers import CrossEncoder

    return CrossEncoder(_build_cross_encoder(tmp_path_factory.mktemp("ce2"), num_labels=2, seed=2), device="cpu")
