"""Generate the data of the ``arithmetic_length`` task (run from anywhere; writes ``data/*.jsonl``).

The data is synthetic and fully determined by the seed below, so re-running this script reproduces the
committed files byte for byte:

    python src/genbench/tasks/arithmetic_length/make_data.py

Splits:
    train       300 sums of two operands with 1-2 digits each;
    validation   60 further 1-2 digit sums (in-distribution, for model selection; disjoint from train);
    test        180 sums whose longer operand has 3, 4 or 5 digits (60 each): longer than anything in train.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

SEED = 20240601
DATA_DIR = Path(__file__).resolve().parent / "data"


def _operand(rng: random.Random, digits: int) -> int:
    low = 0 if digits == 1 else 10 ** (digits - 1)
    return rng.randint(low, 10**digits - 1)


def _example(a: int, b: int) -> dict[str, object]:
    return {"input": f"{a} + {b}", "target": str(a + b), "max_digits": max(len(str(a)), len(str(b)))}


def _short_pairs(rng: random.Random, count: int, exclude: set[tuple[int, int]]) -> list[tuple[int, int]]:
    pairs: list[tuple[int, int]] = []
    while len(pairs) < count:
        pair = (_operand(rng, rng.randint(1, 2)), _operand(rng, rng.randint(1, 2)))
        if pair not in exclude:
            exclude.add(pair)
            pairs.append(pair)
    return pairs


def _long_pairs(rng: random.Random, digits: int, count: int) -> list[tuple[int, int]]:
    pairs: list[tuple[int, int]] = []
    while len(pairs) < count:
        # The longer operand has exactly `digits` digits; the other one is at most as long.
        long_operand = _operand(rng, digits)
        other = _operand(rng, rng.randint(1, digits))
        pair = (long_operand, other) if rng.random() < 0.5 else (other, long_operand)
        if pair not in pairs:
            pairs.append(pair)
    return pairs


def make_splits(seed: int = SEED) -> dict[str, list[dict[str, object]]]:
    rng = random.Random(seed)
    seen: set[tuple[int, int]] = set()
    train = _short_pairs(rng, 300, seen)
    validation = _short_pairs(rng, 60, seen)
    test = [pair for digits in (3, 4, 5) for pair in _long_pairs(rng, digits, 60)]
    return {
        "train": [_example(a, b) for a, b in train],
        "validation": [_example(a, b) for a, b in validation],
        "test": [_example(a, b) for a, b in test],
    }


def write_jsonl(path: Path, rows: list[dict[str, object]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")


if __name__ == "__main__":
    for split, rows in make_splits().items():
        write_jsonl(DATA_DIR / f"{split}.jsonl", rows)
        print(f"{split}: {len(rows)} examples")
