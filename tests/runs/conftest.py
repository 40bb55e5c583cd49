"""Shared fixtures of the model-run tests: a tiny random GPT-2 with a word-level tokenizer, saved once per session."""

from __future__ import annotations

from pathlib import Path

import pytest

WORDS = [
    "Q",
    "A",
    "the",
    "a",
    "is",
    "of",
    "these",
    "which",
    "what",
    "true",
    "false",
    "statement",
    "answer",
    "each",
    "question",
    "with",
    "one",
    "listed",
    "word",
    "that",
    "fits",
    "choices",
    "part",
    "body",
    "elbow",
    "elm",
    "fencing",
    "dragonfly",
    "finger",
    "label",
    "every",
    "token",
    "sentence",
    "its",
    "named",
    "entity",
    "tag",
    "O",
    "B-PER",
    "I-PER",
    "B-LOC",
    "I-LOC",
    "B-ORG",
    "I-ORG",
    "write",
    "per",
    "separated",
    "by",
    "commas",
    "moon",
    "phases",
    "passage",
    "why",
    "does",
    "have",
]
SYMBOLS = list("0123456789+-=:?.,!()[]'\"*/")


@pytest.fixture(scope="session")
def tiny_gpt2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A two-layer randomly initialised GPT-2 and a word-level tokenizer (newlines kept as tokens)."""
    import torch
    from tokenizers import Regex, Tokenizer, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    vocab = {token: i for i, token in enumerate(["[UNK]", "[PAD]", "<|endoftext|>", "\n", *SYMBOLS, *WORDS])}
    tokenizer = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(r"[ \t]+"), behavior="removed"),
            pre_tokenizers.Split(Regex(r"\n|[A-Za-z]+(?:-[A-Z]+)?|[^\sA-Za-z]"), behavior="isolated"),
        ]
    )
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, unk_token="[UNK]", pad_token="[PAD]", eos_token="<|endoftext|>"
    )
    torch.manual_seed(0)
    config = GPT2Config(
        vocab_size=len(vocab), n_positions=256, n_embd=32, n_layer=2, n_head=2,
        bos_token_id=2, eos_token_id=2, pad_token_id=1,
    )  # fmt: skip
    model = GPT2LMHeadModel(config)
    path = tmp_path_factory.mktemp("tiny-gpt2")
    model.save_pretrained(path)
    fast.save_pretrained(path)
    return path
