"""Generate the data of both subtasks of ``negation_consistency``.

    python src/genbench/tasks/negation_consistency/make_data.py

Statements say that a word belongs to a category ("A robin is a bird.", true; "A robin is a fish.", false).

    affirmative/data/train.jsonl, negated/data/train.jsonl
                 the same 200 affirmative statements (100 true, 100 false): negation never occurs in training;
    affirmative/data/test.jsonl
                 100 further affirmative statements (50 true, 50 false), none of whose (word, category) pairs
                 occurs in training;
    negated/data/test.jsonl
                 the same 100 statements negated ("A robin is not a bird."), so every label flips. Row i of the two
                 test files share `pair_id`, which allows per-pair consistency analysis.

Fully determined by the seed: re-running reproduces the committed files.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

SEED = 3
HERE = Path(__file__).resolve().parent
OPTIONS = ["true", "false"]
TRUE, FALSE = 0, 1


def _categories(table: str) -> dict[str, list[str]]:
    """Parse ``category: member member ...`` lines (a category may span lines)."""
    categories: dict[str, list[str]] = {}
    for line in table.strip().splitlines():
        category, members = line.split(":")
        categories.setdefault(category.strip(), []).extend(members.split())
    return categories


# Fifteen unambiguous members per category; no word belongs to two categories.
CATEGORIES = _categories(
    """
    mammal: dog cat horse cow sheep goat pig rabbit lion tiger elephant giraffe zebra bear wolf
    bird: robin sparrow eagle owl parrot pigeon crow swan duck goose penguin ostrich falcon hawk heron
    fish: salmon trout tuna cod carp herring mackerel sardine shark halibut catfish anchovy haddock pike perch
    insect: ant bee wasp beetle butterfly moth mosquito fly grasshopper ladybird dragonfly termite flea cricket earwig
    reptile: snake lizard crocodile alligator turtle tortoise iguana gecko chameleon cobra python viper skink anaconda
    reptile: rattlesnake
    fruit: apple banana mango grape pear peach cherry plum lemon orange kiwi melon apricot fig papaya
    vegetable: carrot potato onion cabbage parsnip leek lettuce cucumber aubergine radish turnip courgette beetroot
    vegetable: artichoke pumpkin
    tool: hammer screwdriver wrench saw chisel pliers drill shovel rake axe crowbar mallet spanner trowel hoe
    vehicle: car bus truck bicycle motorcycle tram van scooter tractor taxi ambulance lorry minibus jeep limousine
    instrument: violin piano guitar trumpet flute drum cello clarinet harp saxophone trombone oboe tuba banjo accordion
    """
)


def _with_article(noun: str) -> str:
    return ("an " if noun[0] in "aeiou" else "a ") + noun


def _statement(member: str, category: str, negated: bool) -> str:
    verb = "is not" if negated else "is"
    return f"{_with_article(member).capitalize()} {verb} {_with_article(category)}."


def _row(pair: tuple[str, str, int], negated: bool, pair_id: int | None = None) -> dict[str, object]:
    member, category, label = pair
    if negated:
        label = FALSE if label == TRUE else TRUE
    row: dict[str, object] = {"statement": _statement(member, category, negated), "label": label, "options": OPTIONS}
    if pair_id is not None:
        row["pair_id"] = pair_id
    return row


def make_splits(seed: int = SEED) -> dict[str, dict[str, list[dict[str, object]]]]:
    """Return ``{subtask: {split: rows}}``."""
    rng = random.Random(seed)
    members = [(member, category) for category, words in CATEGORIES.items() for member in words]
    true_pairs = [(member, category, TRUE) for member, category in members]
    false_pairs = [
        (member, rng.choice([c for c in CATEGORIES if c != category]), FALSE) for member, category in members
    ]
    rng.shuffle(true_pairs)
    rng.shuffle(false_pairs)
    train_pairs = true_pairs[:100] + false_pairs[:100]
    test_pairs = true_pairs[100:150] + false_pairs[100:150]
    rng.shuffle(train_pairs)
    rng.shuffle(test_pairs)
    train = [_row(pair, negated=False) for pair in train_pairs]
    return {
        "affirmative": {"train": train, "test": [_row(p, False, i) for i, p in enumerate(test_pairs)]},
        "negated": {"train": train, "test": [_row(p, True, i) for i, p in enumerate(test_pairs)]},
    }


if __name__ == "__main__":
    for subtask, splits in make_splits().items():
        for split, rows in splits.items():
            path = HERE / subtask / "data" / f"{split}.jsonl"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
            print(f"{subtask}/{split}: {len(rows)} statements")
