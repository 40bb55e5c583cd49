"""Generate the data of the ``ner_unseen_entities`` task (tiny synthetic named-entity tagging, BIO labels).

    python src/genbench/tasks/ner_unseen_entities/make_data.py

Sentences are filled templates whose entity mentions are tagged with BIO labels for PER, ORG and LOC.

    train  200 one-clause sentences; persons, organisations and locations from the "seen" name lists;
    test   100 sentences of two clauses (longer than any training sentence); every person and organisation is
           new, and about half of the locations are new.

No token is shared between two entity types or between an entity and the template words, so the only way to
tag a new name is from its context. Fully determined by the seed: re-running reproduces the committed files.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

SEED = 11
DATA_DIR = Path(__file__).resolve().parent / "data"


def _names(table: str) -> dict[str, list[str]]:
    """Parse ``LABEL: Name One, Name Two, ...`` lines (names may contain spaces; a label may span lines)."""
    names: dict[str, list[str]] = {}
    for line in table.strip().splitlines():
        label, listed = line.split(":")
        names.setdefault(label.strip(), []).extend(name.strip() for name in listed.split(","))
    return names


SEEN = _names(
    """
    PER: Anna Berg, Omar Haddad, Lena Fischer, Tom Walsh, Priya Nair, Jonas, Maria Costa, Kenji Mori
    PER: Sofia, Pedro Alves, Ingrid Holm, Samuel Okafor
    ORG: Northwind Traders, Acme Corporation, Bluefield Bank, Orion Labs, Summit Insurance, Nimbus
    ORG: Redwood Press, Vertex Motors
    LOC: Lisbon, Oslo, Nairobi, Buenos Aires, Kyoto, Toronto, Cairo, New Delhi, Vienna, Lima
    """
)
UNSEEN = _names(
    """
    PER: Clara Dupont, Yusuf Demir, Mei Chen, Arjun Rao, Elif, Hannah Vogel, Diego Ramos, Aiko Sato
    PER: Felix Brandt, Zara Khan
    ORG: Silverline Logistics, Quanta Systems, Harbourview Hotels, Kestrel Airways, Lumen Foods
    LOC: Hanoi, Quito, Tbilisi, Cape Town, Reykjavik
    """
)

# One-clause templates: train sentences are one clause, test sentences two.
CLAUSES = [
    "{PER} lives in {LOC}",
    "{PER} works for {ORG}",
    "{ORG} opened an office in {LOC}",
    "{PER} met {PER} in {LOC}",
    "yesterday {PER} flew to {LOC}",
    "{ORG} hired {PER} last year",
    "{PER} visited {LOC} in May",
    "the weather in {LOC} was cold",
    "{PER} wrote a report about {ORG}",
]
CONNECTORS = [", and", ", but", ", while", "; meanwhile ,", ", so"]


def _tag(mention: str, label: str) -> list[tuple[str, str]]:
    tokens = mention.split()
    return [(token, ("B-" if i == 0 else "I-") + label) for i, token in enumerate(tokens)]


def _fill(rng: random.Random, template: str, names: dict[str, list[str]]) -> list[tuple[str, str]]:
    tagged: list[tuple[str, str]] = []
    used: set[str] = set()
    for piece in template.split():
        if piece.startswith("{") and piece.endswith("}"):
            label = piece[1:-1]
            mention = rng.choice([n for n in names[label] if n not in used])
            used.add(mention)
            tagged.extend(_tag(mention, label))
        else:
            tagged.append((piece, "O"))
    return tagged


def _sentence(parts: list[list[tuple[str, str]]], connector: str | None = None) -> dict[str, list[str]]:
    tagged = list(parts[0])
    if connector is not None:
        tagged += [(token, "O") for token in connector.split()] + parts[1]
    tagged.append((".", "O"))
    first, label = tagged[0]
    tagged[0] = (first[0].upper() + first[1:], label)
    return {"tokens": [t for t, _ in tagged], "tags": [label for _, label in tagged]}


def make_splits(seed: int = SEED) -> dict[str, list[dict[str, list[str]]]]:
    rng = random.Random(seed)
    train = [_sentence([_fill(rng, rng.choice(CLAUSES), SEEN)]) for _ in range(200)]
    # Test names: new persons and organisations; locations drawn half from the seen, half from the new list.
    test_names = {"PER": UNSEEN["PER"], "ORG": UNSEEN["ORG"], "LOC": UNSEEN["LOC"] + SEEN["LOC"][: len(UNSEEN["LOC"])]}
    test = []
    for _ in range(100):
        first, second = rng.sample(CLAUSES, 2)
        clauses = [_fill(rng, first, test_names), _fill(rng, second, test_names)]
        test.append(_sentence(clauses, rng.choice(CONNECTORS)))
    return {"train": train, "test": test}


if __name__ == "__main__":
    DATA_DIR.mkdir(exist_ok=True)
    for split, rows in make_splits().items():
        text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
        (DATA_DIR / f"{split}.jsonl").write_text(text, encoding="utf-8")
        print(f"{split}: {len(rows)} sentences, up to {max(len(r['tokens']) for r in rows)} tokens")
