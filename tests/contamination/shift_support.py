"""Generated corpora for the shift tests, and the brute-force statistics every engine must reproduce."""

from __future__ import annotations

import json
import math
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from genbench.contamination.shift._tokenizers import tokenizer_named

ALPHABET = ["a", "b", "c", " ", "é", "東", "✓", "ö", ".", "B"]


def generated_documents(seed: int = 7, documents: int = 60) -> list[str]:
    """Short documents over a small alphabet (repeats are likely), some empty, with non-ASCII characters."""
    rng = random.Random(seed)
    texts = ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 40))) for _ in range(documents)]
    texts[3] = ""
    return texts


def write_corpus(folder: Path, texts: Sequence[str], files: int = 2) -> Path:
    """``texts`` as JSONL over ``files`` files in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for number in range(files):
        lines = [json.dumps({"text": text}, ensure_ascii=False) + "\n" for text in texts[number::files]]
        (folder / f"part{number}.jsonl").write_text("".join(lines), encoding="utf-8")
    return folder


def test_examples(documents: Sequence[str], seed: int = 11) -> list[str]:
    """Examples: pieces of documents (found), fresh text (mostly not), empty, shorter than n, unicode."""
    rng = random.Random(seed)
    examples = ["", "a", "東", "zzzz qqq", "é✓ö"]
    for _ in range(25):
        document = rng.choice([d for d in documents if d])
        start = rng.randrange(len(document))
        examples.append(document[start : start + rng.randint(1, 30)] + rng.choice(["", " xyz", "ab"]))
    for _ in range(10):
        examples.append("".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 30))))
    return examples


test_examples.__test__ = False  # type: ignore[attr-defined]


def trained_tokenizer(folder: Path, documents: Sequence[str]) -> Path:
    """A small BPE tokenizer.json trained on ``documents`` (a model's tokenizer, made offline)."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE(unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.train_from_iterator(documents, trainers.BpeTrainer(vocab_size=60, special_tokens=["[UNK]"]))
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer.save(str(folder / "tokenizer.json"))
    return folder / "tokenizer.json"


class BruteForce:
    """Every count by scanning every document's tokens (overlapping occurrences, none across documents)."""

    def __init__(self, documents: Sequence[str], tokenizer: str, tokenizer_folder: Path | None = None):
        self.tokenizer = tokenizer_named(tokenizer, tokenizer_folder)
        self.documents = [list(self.tokenizer.split(text).units) for text in documents]

    def count(self, gram: Sequence[Any]) -> int:
        gram = list(gram)
        n = len(gram)
        return sum(1 for doc in self.documents for i in range(len(doc) - n + 1) if doc[i : i + n] == gram)

    def example(self, text: str, ngram_sizes: Sequence[int], rarest: int) -> dict[str, Any]:
        split = self.tokenizer.split(text)
        units = list(split.units)
        shares: dict[str, float | None] = {}
        rarest_by_n: dict[str, list[dict[str, Any]]] = {}
        for n in ngram_sizes:
            grams = [units[i : i + n] for i in range(len(units) - n + 1)]
            shares[str(n)] = sum(self.count(g) > 0 for g in grams) / len(grams) if grams else None
            distinct: list[tuple[int, int]] = []  # (count, first position)
            seen: list[list[Any]] = []
            for position, gram in enumerate(grams):
                if gram not in seen:
                    seen.append(gram)
                    distinct.append((self.count(gram), position))
            rarest_by_n[str(n)] = [
                {"text": text[split.spans[p][0] : split.spans[p + n - 1][1]], "count": c}
                for c, p in sorted(distinct)[:rarest]
            ]
        best = (0, 0)
        for start in range(len(units)):
            for end in range(start + 1, len(units) + 1):
                if end - start > best[1] - best[0] and self.count(units[start:end]) > 0:
                    best = (start, end)
        if best[1] > best[0]:
            first, past = split.spans[best[0]][0], split.spans[best[1] - 1][1]
            span = {
                "tokens": best[1] - best[0],
                "characters": past - first,
                "count": self.count(units[best[0] : best[1]]),
                "text": text[first:past],
            }
        else:
            span = {"tokens": 0, "characters": 0, "count": None, "text": ""}
        return {"tokens": len(units), "ngram_hit_share": shares, "longest_span": span, "rarest_ngrams": rarest_by_n}

    def cross_entropy(self, texts: Sequence[str]) -> float:
        corpus: dict[Any, int] = {}
        for doc in self.documents:
            for unit in doc:
                corpus[unit] = corpus.get(unit, 0) + 1
        total = sum(corpus.values())
        test = [unit for text in texts for unit in self.tokenizer.split(text).units]
        vocabulary = len(set(corpus) | set(test))
        return -sum(math.log2((corpus.get(u, 0) + 1) / (total + vocabulary)) for u in test) / len(test)


# A python: predictor for arithmetic_length, right on the even sums, wrong ("0") on the odd ones: a score that
# differs between the clean subset and all examples.
EVEN_SUMS_PREDICTOR = """
import re

def predict(requests, task, **options):
    answers = []
    for prompt in requests:
        a, b = re.findall(r"(\\d+) \\+ (\\d+)", prompt)[-1]
        total = int(a) + int(b)
        answers.append(str(total) if total % 2 == 0 else "0")
    return answers
"""


def arithmetic_length_report(folder: Path, contained: Sequence[int]) -> Path:
    """arithmetic_length's shift report (5-grams, threshold 1) against a corpus, named ``tiny``, that holds the test
    examples at ``contained`` verbatim; built and measured with ``genbench-cli shift build`` and ``shift measure``."""
    from click.testing import CliRunner

    from genbench.cli import cli
    from genbench.task import Task
    from genbench.task._factory import load_task

    task = load_task("arithmetic_length")
    assert isinstance(task, Task)
    inputs = task.get_datasets_raw()["test"]["input"]
    lines = [{"text": f"Worked example: {inputs[i]} is easy."} for i in contained] + [{"text": "nothing else"}]
    corpus = folder / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    runner = CliRunner()
    built = runner.invoke(cli, ["shift", "build", str(corpus), "--index-dir", str(folder / "index"), "--name", "tiny"])
    assert built.exit_code == 0, built.output
    measured = runner.invoke(
        cli,
        ["shift", "measure", "--index", str(folder / "index"), "-t", "arithmetic_length", "-o", str(folder),
         "--ngram-size", "5", "--threshold", "1"],
    )  # fmt: skip
    assert measured.exit_code == 0, measured.output
    return folder / "arithmetic_length.shift.json"
