"""Write ``bm25.jsonl`` for every ``Nano*/`` dataset of this demo suite from its ``corpus`` and ``queries``.

Okapi BM25 (k1=1.2, b=0.75, the Lucene/Elasticsearch defaults BEIR used) over lower-cased alphanumeric tokens minus
a few English stop words; equal scores keep corpus order. The suite's texts are invented for genbench's tests and
demos. Run from anywhere: ``python src/genbench/reranking/data/nano_demo/build_bm25.py``.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from pathlib import Path

K1 = 1.2
B = 0.75
STOP_WORD_TEXT = (
    "a an and are as at be by do does for from how i in is it its of on or so that the their there this to "
    "what when where which why with my we you your"
)
STOP_WORDS = frozenset(STOP_WORD_TEXT.split())


def tokenize(text: str) -> list[str]:
    """Lower-cased alphanumeric tokens without stop words."""
    return [token for token in re.findall(r"[a-z0-9]+", text.lower()) if token not in STOP_WORDS]


def bm25_rankings(corpus: list[dict], queries: list[dict]) -> list[dict]:
    """One ``{"query-id", "corpus-ids"}`` row per query, the whole corpus ranked by BM25."""
    documents = [Counter(tokenize(row["text"])) for row in corpus]
    lengths = [sum(counts.values()) for counts in documents]
    average_length = sum(lengths) / len(lengths)
    document_frequency = Counter(term for counts in documents for term in counts)
    num_documents = len(documents)

    def idf(term: str) -> float:
        df = document_frequency.get(term, 0)
        return math.log(1 + (num_documents - df + 0.5) / (df + 0.5))

    rows = []
    for query in queries:
        terms = tokenize(query["text"])
        scores = []
        for counts, length in zip(documents, lengths, strict=True):
            score = 0.0
            for term in terms:
                tf = counts.get(term, 0)
                if tf:
                    score += idf(term) * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / average_length))
            scores.append(score)
        order = sorted(range(num_documents), key=lambda index: -scores[index])
        rows.append({"query-id": query["_id"], "corpus-ids": [corpus[index]["_id"] for index in order]})
    return rows


def read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def main() -> None:
    here = Path(__file__).resolve().parent
    for folder in sorted(here.glob("Nano*")):
        rows = bm25_rankings(read_jsonl(folder / "corpus.jsonl"), read_jsonl(folder / "queries.jsonl"))
        with (folder / "bm25.jsonl").open("w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row) + "\n")
        print(f"{folder.name}: {len(rows)} queries")


if __name__ == "__main__":
    main()
