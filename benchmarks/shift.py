"""Shift measurement: engine queries per second, genbench's overhead over infini-gram, a 10,000-example task.

Usage::

    python benchmarks/shift.py [--corpus-mb 100] [--examples 10000] [--overhead-examples 300] [--runs 5]

Builds, in a temporary folder, a synthetic corpus of ``--corpus-mb`` MB of text (documents of words drawn with a
Zipf law from the words of the shipped tasks' data, seeded) and an infini-gram index of it (``--tokenizer words``, or
``bytes`` with infini-gram's own indexer; its build time is reported), plus a 20,000-document slice indexed by
every engine (infini-gram words, the embedded contamination index, Elasticsearch through osmem-server when it
is installed).

- Queries per second of each engine's ``contains`` on the same word n-grams of the slice (n = 8, half of them
  copied from its documents): 2,000 queries, 50 for Elasticsearch.
- genbench's overhead over calling infini-gram directly: ``measure_test_set`` on ``--overhead-examples`` examples
  against the big index, against sending the very count queries it sent (recorded on a first run) straight to the
  engine's ``count`` (``InfiniGramEngine.count``), the two alternated run by run; the ratio of the medians.
- The ``--examples`` task against the big index in a child process (once): wall seconds and peak RSS (``ru_maxrss``).

``benchmarks/results/shift.json`` records the figures (rendered into docs/performance.md).
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import REPO_ROOT, ratio, row, summary, time_calls, versions, write_results  # noqa: E402

SEED = 20260
SLICE_DOCUMENTS = 20_000
QUERIES = 2_000
ES_QUERIES = 50  # osmem-server answers a phrase count on the slice in a tenth of a second or more: fewer queries


def shipped_words() -> list[str]:
    words: set[str] = set()
    for path in (REPO_ROOT / "src" / "genbench" / "tasks").rglob("*.jsonl"):
        words.update(re.findall(r"[A-Za-z]+", path.read_text(encoding="utf-8")))
    return sorted(words)


def write_corpus(path: Path, megabytes: int, rng: np.random.Generator, words: list[str]) -> list[str]:
    """``megabytes`` MB of documents (30-300 words each) as JSONL; returns the first documents (the slice)."""
    ranks = np.minimum(rng.zipf(1.3, size=4_000_000), len(words)) - 1
    vocabulary = np.array(words)[rng.permutation(len(words))]
    kept: list[str] = []
    written, cursor = 0, 0
    with open(path, "w", encoding="utf-8") as handle:
        while written < megabytes * 1_000_000:
            length = int(rng.integers(30, 300))
            if cursor + length > len(ranks):
                cursor = 0
            text = " ".join(vocabulary[ranks[cursor : cursor + length]].tolist())
            cursor += length + int(rng.integers(0, 97))
            handle.write(json.dumps({"text": text}) + "\n")
            written += len(text)
            if len(kept) < SLICE_DOCUMENTS:
                kept.append(text)
    return kept


def examples_from(documents: list[str], count: int, rng: np.random.Generator, words: list[str]) -> list[str]:
    """Half copied passages (20-60 words) of ``documents``, half fresh text of the same words."""
    examples = []
    for number in range(count):
        length = int(rng.integers(20, 60))
        if number % 2 == 0:
            tokens = documents[int(rng.integers(len(documents)))].split()
            start = int(rng.integers(max(1, len(tokens) - length)))
            examples.append(" ".join(tokens[start : start + length]))
        else:
            examples.append(" ".join(words[i] for i in rng.integers(0, len(words), size=length)))
    return examples


def task_child(index: str, examples_file: str) -> None:
    """Run in a child: measure the examples against the index, print seconds and peak RSS as JSON."""
    from genbench.contamination._testsets import TestSet
    from genbench.contamination.shift import open_corpus
    from genbench.contamination.shift._measure import measure_test_set

    texts = json.loads(Path(examples_file).read_text(encoding="utf-8"))
    start = time.perf_counter()
    result = measure_test_set(TestSet.from_texts("bench", texts), open_corpus(index))
    seconds = time.perf_counter() - start
    flagged = result.report["summary"]["flagged"]["count"]
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"seconds": seconds, "peak_rss_mib": peak_kib / 1024, "flagged": flagged}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus-mb", type=int, default=100)
    parser.add_argument("--tokenizer", choices=["words", "bytes"], default="words")
    parser.add_argument("--examples", type=int, default=10_000)
    parser.add_argument("--overhead-examples", type=int, default=300)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        task_child(*args.child)
        return

    from genbench.contamination._embedded import EmbeddedBackend
    from genbench.contamination._testsets import TestSet
    from genbench.contamination._training_data import UnitSpec, load_training_dataset
    from genbench.contamination.shift import open_corpus
    from genbench.contamination.shift._infinigram import build_infinigram_index
    from genbench.contamination.shift._measure import measure_test_set

    rng = np.random.default_rng(SEED)
    words = shipped_words()
    payload: dict[str, Any] = {"versions": versions("genbench", "infini-gram", "osmem-server"), "runs": args.runs}
    with tempfile.TemporaryDirectory(prefix="genbench-shift-bench-") as folder:
        root = Path(folder)
        corpus = root / "corpus" / "corpus.jsonl"
        corpus.parent.mkdir()
        documents = write_corpus(corpus, args.corpus_mb, rng, words)
        start = time.perf_counter()
        big = build_infinigram_index(
            [corpus], root / "big", name="synthetic", tokenizer=args.tokenizer, cpus=2, memory_gib=4
        )
        build_seconds = time.perf_counter() - start
        big_corpus = open_corpus(big)
        payload["corpus"] = {
            "text_mb": args.corpus_mb,
            "tokenizer": args.tokenizer,
            "tokens": big_corpus.identity.tokens,
            "documents": big_corpus.identity.documents,
            "build_seconds": build_seconds,
            "index_bytes": sum(p.stat().st_size for p in big.iterdir()),
        }
        identity = big_corpus.identity
        print(f"corpus: {identity.tokens} {args.tokenizer} tokens, {identity.documents} documents; index built in "
              f"{build_seconds:.1f} s")  # fmt: skip

        # Queries per second of each engine, on a slice every engine indexes.
        slice_file = root / "slice.jsonl"
        slice_file.write_text("".join(json.dumps({"text": d}) + "\n" for d in documents), encoding="utf-8")
        engines: dict[str, Any] = {}
        start = time.perf_counter()
        engines["infini-gram"] = open_corpus(
            build_infinigram_index([slice_file], root / "slice-words", name="slice", tokenizer="words")
        )
        builds = {"infini-gram": time.perf_counter() - start}
        start = time.perf_counter()
        backend = EmbeddedBackend(root / "embedded")
        backend.build(load_training_dataset(str(slice_file)), UnitSpec(text_field="text"))
        [embedded_folder] = [p for p in (root / "embedded").iterdir() if p.name.endswith(".text")]
        engines["embedded"] = open_corpus(embedded_folder)
        builds["embedded"] = time.perf_counter() - start
        server = None
        try:
            from osmem_server import OsmemServer

            sys.path.insert(0, str(REPO_ROOT))
            from tests.contamination.es_support import osmem_client

            from genbench.contamination._es import ElasticsearchBackend
            from genbench.contamination.shift._elasticsearch import ElasticsearchCorpus

            server = OsmemServer.start(japanese=False).__enter__()
            start = time.perf_counter()
            elasticsearch = ElasticsearchBackend(client=osmem_client(server.url))
            elasticsearch.build(load_training_dataset(str(slice_file)), UnitSpec(text_field="text"))
            engines["elasticsearch (osmem-server)"] = ElasticsearchCorpus(elasticsearch, str(slice_file))
            builds["elasticsearch (osmem-server)"] = time.perf_counter() - start
        except ImportError:
            print("osmem-server is not installed: no Elasticsearch figure")
        texts = examples_from(documents, QUERIES, rng, words)
        qps: dict[str, Any] = {}
        for name, engine in engines.items():
            grams = []
            for text in texts[: ES_QUERIES if name.startswith("elasticsearch") else QUERIES]:
                ids = engine.token_ids(engine.tokenizer.split(text))
                grams.append(tuple(ids[:8]))
            found = [engine.contains(g) for g in grams]  # warm (the embedded engine builds its 8-gram table here)
            seconds, _ = time_calls(lambda e=engine, g=grams: [e.contains(x) for x in g], args.runs)
            qps[name] = {"seconds": summary(seconds), "queries": len(grams), "found": sum(found),
                         "queries_per_second_median": len(grams) / summary(seconds)["median"],
                         "build_seconds": builds[name]}  # fmt: skip
            print(row(f"{name}: {len(grams)} contains queries", summary(seconds)))
        payload["queries_per_second"] = qps
        # The engines index the same slice with the same tokenizer: they must find the same n-grams.
        answers = {
            name: [engine.contains(engine.token_ids(engine.tokenizer.split(text))[:8]) for text in texts[:ES_QUERIES]]
            for name, engine in engines.items()
        }
        if len({tuple(found) for found in answers.values()}) != 1:
            raise SystemExit(f"the engines disagree on which n-grams the slice holds: {answers}")
        if server is not None:
            server.__exit__(None, None, None)

        # genbench's overhead over the same count queries sent to infini-gram directly.
        task = TestSet.from_texts("bench", examples_from(documents, args.overhead_examples, rng, words))
        sent: list[tuple[int, ...]] = []
        original = big_corpus.count
        big_corpus.count = lambda ids: sent.append(tuple(ids)) or original(ids)  # type: ignore[method-assign]
        measure_test_set(task, big_corpus)
        big_corpus.count = original  # type: ignore[method-assign]
        raw = big_corpus._engine  # noqa: SLF001 (the anchor: infini-gram's own engine, as genbench opened it)
        if [raw.count(list(q))["count"] for q in sent[:1000]] != [original(q) for q in sent[:1000]]:
            raise SystemExit("infini-gram's engine and genbench's count disagree")
        queries = [list(q) for q in sent]
        direct: list[float] = []
        ours: list[float] = []
        for _ in range(args.runs):  # alternated, so that a change in the machine's load falls on both
            direct += time_calls(lambda: [raw.count(q) for q in queries], 1)[0]
            ours += time_calls(lambda: measure_test_set(task, big_corpus), 1)[0]
        payload["overhead"] = {
            "examples": args.overhead_examples,
            "count_queries": len(queries),
            "infini_gram_direct": summary(direct),
            "genbench_measure": summary(ours),
            "ratio_genbench_over_direct": 1 / ratio(summary(direct), summary(ours)),
        }
        print(row(f"infini-gram count, the {len(queries)} queries", summary(direct)))
        print(row(f"genbench measure_test_set, {args.overhead_examples} examples", summary(ours)))
        print(f"  genbench / direct: {payload['overhead']['ratio_genbench_over_direct']:.2f}x")

        # The whole task in a fresh child: wall time and peak memory.
        examples_file = root / "examples.json"
        examples_file.write_text(json.dumps(examples_from(documents, args.examples, rng, words)), encoding="utf-8")
        runs = []
        for _ in range(1):
            done = subprocess.run(
                [sys.executable, __file__, "--child", str(big), str(examples_file)],
                capture_output=True, text=True, check=True,
            )  # fmt: skip
            runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
        payload["task"] = {
            "examples": args.examples,
            "seconds": summary([r["seconds"] for r in runs]),
            "peak_rss_mib": max(r["peak_rss_mib"] for r in runs),
            "flagged": runs[0]["flagged"],
        }
        print(row(f"{args.examples}-example task, fresh process", payload["task"]["seconds"]))
        print(f"  peak RSS {payload['task']['peak_rss_mib']:.0f} MiB")
    name = "shift" if args.tokenizer == "words" else f"shift-{args.tokenizer}"
    print(f"wrote {write_results(name, payload)}")


if __name__ == "__main__":
    main()
