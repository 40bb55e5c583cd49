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
    return save_tiny_gpt2(tmp_path_factory.mktemp("tiny-gpt2"), bos=False)


@pytest.fixture(scope="session")
def tiny_gpt2_bos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same shape, with a tokenizer that starts every encoding with a ``<s>`` BOS token (as Llama's does)."""
    return save_tiny_gpt2(tmp_path_factory.mktemp("tiny-gpt2-bos"), bos=True)


def save_tiny_gpt2(path: Path, *, bos: bool) -> Path:
    """Write a two-layer GPT-2 initialised at random (seed 0) and its word-level tokenizer to ``path``.

    With ``bos``, ``<s>`` is appended to the vocabulary and the tokenizer starts every encoding with it; without,
    the vocabulary (and so every token id) is the one the other tests were written against.
    """
    import torch
    from tokenizers import Regex, Tokenizer, models, pre_tokenizers, processors
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    tokens = ["[UNK]", "[PAD]", "<|endoftext|>", "\n", *SYMBOLS, *WORDS] + (["<s>"] if bos else [])
    vocab = {token: i for i, token in enumerate(tokens)}
    tokenizer = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(r"[ \t]+"), behavior="removed"),
            pre_tokenizers.Split(Regex(r"\n|[A-Za-z]+(?:-[A-Z]+)?|[^\sA-Za-z]"), behavior="isolated"),
        ]
    )
    special = {"unk_token": "[UNK]", "pad_token": "[PAD]", "eos_token": "<|endoftext|>"}
    if bos:
        tokenizer.post_processor = processors.TemplateProcessing(
            single="<s> $A", pair="<s> $A $B", special_tokens=[("<s>", vocab["<s>"])]
        )
        special["bos_token"] = "<s>"
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, **special)
    torch.manual_seed(0)
    config = GPT2Config(
        vocab_size=len(vocab), n_positions=256, n_embd=32, n_layer=2, n_head=2,
        bos_token_id=vocab["<s>"] if bos else 2, eos_token_id=2, pad_token_id=1,
    )  # fmt: skip
    model = GPT2LMHeadModel(config)
    model.save_pretrained(path)
    fast.save_pretrained(path)
    return path
