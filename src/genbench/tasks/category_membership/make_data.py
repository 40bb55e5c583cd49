"""Generate the data and the split file of the ``category_membership`` task.

    python src/genbench/tasks/category_membership/make_data.py

Each example asks which of four words belongs to a category ("Which of these is a bird: owl, apple, hammer or
red?") and lists the words as its own options: one member of the category and three distractors, each from a
different other category. The question names its four words, so no two examples share an (input, target) pair
(the original framework's validator compares examples by input and target alone).

The source files ``data/train.jsonl`` and ``data/test.jsonl`` are an i.i.d. 80/20 shuffle of all examples, as a
typical dataset would ship. ``split.jsonnet`` re-splits them by category so that the test set asks only about
categories that never occur in the train or validation sets (a split name the source files lack):

    train       ten seen categories, ten members each;
    validation  the same ten categories, their two remaining members each;
    test        six unseen categories, twelve members each.

Distractors are drawn from the same group (seen or unseen) as the question's category, so "pick the word from
an unfamiliar category" is no shortcut on the test set. Fully determined by the seed: re-running reproduces the
committed files.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

SEED = 7
HERE = Path(__file__).resolve().parent


def _categories(table: str) -> dict[str, list[str]]:
    """Parse ``category phrase: member member ...`` lines."""
    rows = (line.split(":") for line in table.strip().splitlines())
    return {phrase.strip(): members.split() for phrase, members in rows}


# Twelve unambiguous members per category; no word belongs to two categories.
SEEN_CATEGORIES = _categories(
    """
    a fruit: apple banana mango grape pear peach strawberry pineapple kiwi lemon watermelon apricot
    a vegetable: carrot potato onion cabbage broccoli spinach lettuce cucumber celery radish turnip cauliflower
    a bird: sparrow eagle robin pigeon parrot owl crow swan penguin flamingo heron woodpecker
    a fish: salmon trout tuna cod carp herring mackerel sardine halibut catfish anchovy haddock
    a tool: hammer screwdriver wrench saw chisel pliers drill shovel rake axe crowbar mallet
    a musical instrument: violin piano guitar trumpet flute drum cello clarinet harp saxophone trombone oboe
    a colour: red blue green yellow purple pink brown black white grey turquoise magenta
    a vehicle: car bus truck bicycle motorcycle tram van scooter tractor taxi ambulance lorry
    a piece of furniture: chair table sofa bed wardrobe desk bookshelf stool dresser bench cabinet armchair
    an item of clothing: shirt trousers jacket skirt sweater coat scarf sock dress blouse vest hoodie
    """
)
UNSEEN_CATEGORIES = _categories(
    """
    an insect: ant bee beetle butterfly mosquito grasshopper ladybird wasp moth dragonfly termite flea
    a tree: oak maple birch pine willow elm cedar spruce beech poplar cypress sycamore
    a flower: rose tulip daisy lily orchid sunflower daffodil poppy carnation marigold peony dahlia
    a sport: football tennis basketball golf hockey rugby volleyball baseball boxing badminton cricket fencing
    a part of the body: elbow knee shoulder ankle wrist finger forehead chin thumb heel neck hip
    a metal: copper zinc nickel aluminium tin titanium platinum cobalt tungsten magnesium chromium iron
    """
)
TRAIN_MEMBERS_PER_SEEN_CATEGORY = 10


def _questions(rng: random.Random, categories: dict[str, list[str]]) -> list[dict[str, object]]:
    rows = []
    for category, members in categories.items():
        others = [c for c in categories if c != category]
        for member in members:
            distractors = [rng.choice(categories[c]) for c in rng.sample(others, 3)]
            answer = rng.randrange(4)
            options = distractors[:answer] + [member] + distractors[answer:]
            rows.append(
                {
                    "question": f"Which of these is {category}: {', '.join(options[:3])} or {options[3]}?",
                    "options": options,
                    "answer": answer,
                    "category": category.split(" ", 1)[1],
                    "seen_category": categories is SEEN_CATEGORIES,
                }
            )
    return rows


def make_data(seed: int = SEED) -> tuple[dict[str, list[dict[str, object]]], dict[str, list[str]]]:
    """Return the source files' rows and the split file's entries."""
    rng = random.Random(seed)
    seen_rows = _questions(rng, SEEN_CATEGORIES)
    unseen_rows = _questions(rng, UNSEEN_CATEGORIES)

    # Which rows go where in the generalisation split (by category and member position).
    per_category = len(next(iter(SEEN_CATEGORIES.values())))
    target_split = {}
    for i, row in enumerate(seen_rows):
        in_train = i % per_category < TRAIN_MEMBERS_PER_SEEN_CATEGORY
        target_split[id(row)] = "train" if in_train else "validation"
    for row in unseen_rows:
        target_split[id(row)] = "test"

    # The source files: an i.i.d. 80/20 shuffle, as the data would be distributed before re-splitting.
    pool = seen_rows + unseen_rows
    rng.shuffle(pool)
    cut = int(len(pool) * 0.8)
    source = {"train": pool[:cut], "test": pool[cut:]}

    split: dict[str, list[str]] = {"train": [], "validation": [], "test": []}
    for source_split, rows in source.items():
        for index, row in enumerate(rows):
            split[target_split[id(row)]].append(f"{source_split}:{index}")
    return source, split


def _render_split_file(split: dict[str, list[str]]) -> str:
    lines = [
        "// Generated by make_data.py: re-splits the i.i.d. source files by category.",
        "// train/validation: ten seen categories; test: six categories absent from train and validation.",
        "{",
    ]
    for name, entries in split.items():
        lines.append(f"  {name}: [")
        for start in range(0, len(entries), 8):
            lines.append("    " + " ".join(json.dumps(e) + "," for e in entries[start : start + 8]))
        lines.append("  ],")
    lines.append("}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    source, split = make_data()
    (HERE / "data").mkdir(exist_ok=True)
    for name, rows in source.items():
        text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
        (HERE / "data" / f"{name}.jsonl").write_text(text, encoding="utf-8")
        print(f"source {name}: {len(rows)} examples")
    (HERE / "split.jsonnet").write_text(_render_split_file(split), encoding="utf-8")
    for name, entries in split.items():
        print(f"split {name}: {len(entries)} examples")
