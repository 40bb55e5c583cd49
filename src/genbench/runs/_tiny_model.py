"""A tiny GPT-2 initialised at random, with a word-level tokenizer: a first model that needs no download.

``genbench-cli models make-tiny DIR`` writes one (:func:`build_model`, shapes in :data:`SHAPES`); the ``run``
benchmarks and the tests use the same builder. See docs/running_models.md#a-first-model-offline.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from genbench._core.extras import import_optional

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
# a chat template as instruction-tuned models have (Zephyr's layout, without the newline after the assistant's header,
# after which the random weights generate only newlines): it starts with the BOS text, so the rendered prompt must get
# no second BOS, and the answer follows the assistant's header
CHAT_TEMPLATE = (
    "{{ bos_token }}{% for message in messages %}<|{{ message['role'] }}|>\n{{ message['content'] }}<|end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}"
)
CHAT_WORDS = ["<", "|", ">", "system", "user", "assistant", "end"]
SHAPES: dict[str, dict[str, Any]] = {
    "tiny": {"n_positions": 256, "n_embd": 32, "n_layer": 2, "n_head": 2, "vocab_size": None, "bos": False},
    "tiny-bos": {"n_positions": 256, "n_embd": 32, "n_layer": 2, "n_head": 2, "vocab_size": None, "bos": True},
    "tiny-chat": {
        "n_positions": 256,
        "n_embd": 32,
        "n_layer": 2,
        "n_head": 2,
        "vocab_size": None,
        "bos": True,
        "chat": True,
    },  # fmt: skip
    "gpt2-small": {"n_positions": 1024, "n_embd": 768, "n_layer": 12, "n_head": 12, "vocab_size": 50257, "bos": False},
}


def build_model(name: str, path: Path, seed: int = 0) -> Path:
    """Write the model ``name`` of :data:`SHAPES` (weights and tokenizer) to ``path``; returns ``path``.

    Needs ``genbench[hf]`` (torch, transformers, tokenizers), imported here. The same name and seed give the same
    weights. The shapes:

    - ``tiny``: 2 layers, width 32, no BOS token (its vocabulary holds ``<s>`` all the same, at id 3: the ids, and so
      the random weights, are those of ``tiny-bos``);
    - ``tiny-bos``: the same weights, and a tokenizer that starts every encoding with ``<s>`` (as Llama's does);
    - ``tiny-chat``: ``tiny-bos`` with the words of a chat template's role markers and that template
      (:data:`CHAT_TEMPLATE`): an instruction-tuned model to try chat templates with;
    - ``gpt2-small``: GPT-2 small's shape (124M parameters); the vocabulary is padded with filler words ``w00090``
      ... so that every id the model can generate decodes to a word.
    """
    for module in ("torch", "tokenizers", "transformers"):
        import_optional(module, "hf", "Tiny models")
    import torch
    from tokenizers import Regex, Tokenizer, models, pre_tokenizers, processors
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    if name not in SHAPES:
        raise ValueError(f"Unknown tiny model shape {name!r}: expected one of {', '.join(SHAPES)}.")

    shape = SHAPES[name]
    tokens = ["[UNK]", "[PAD]", "<|endoftext|>", "<s>", "\n", *SYMBOLS, *WORDS]
    if shape.get("chat"):
        tokens += CHAT_WORDS
    if shape["vocab_size"]:
        tokens += [f"w{i:05d}" for i in range(len(tokens), shape["vocab_size"])]
    vocab = {token: i for i, token in enumerate(tokens)}
    tokenizer = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(r"[ \t]+"), behavior="removed"),
            pre_tokenizers.Split(Regex(r"\n|[A-Za-z]+(?:-[A-Z]+)?|[^\sA-Za-z]"), behavior="isolated"),
        ]
    )
    special: dict[str, str] = {"unk_token": "[UNK]", "pad_token": "[PAD]", "eos_token": "<|endoftext|>"}
    if shape["bos"]:
        tokenizer.post_processor = processors.TemplateProcessing(
            single="<s> $A", pair="<s> $A $B", special_tokens=[("<s>", vocab["<s>"])]
        )
        special["bos_token"] = "<s>"
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, **special)
    if shape.get("chat"):
        fast.chat_template = CHAT_TEMPLATE
    torch.manual_seed(seed)
    config = GPT2Config(
        vocab_size=len(vocab),
        n_positions=shape["n_positions"],
        n_embd=shape["n_embd"],
        n_layer=shape["n_layer"],
        n_head=shape["n_head"],
        bos_token_id=vocab["<s>"] if shape["bos"] else vocab["<|endoftext|>"],
        eos_token_id=vocab["<|endoftext|>"],
        pad_token_id=vocab["[PAD]"],
    )
    model = GPT2LMHeadModel(config)
    path.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(path)
    fast.save_pretrained(path)
    return path
