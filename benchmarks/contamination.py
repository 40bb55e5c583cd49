"""Contamination: genbench's one-shot scan, and its embedded index + search, against a streaming baseline.

Usage::

    python benchmarks/contamination.py [--tokens 20000000] [--small-tokens 2000000] [--tests 2000] [--runs 5]

Data (seeded): chat conversations in a JSONL file, each with one to three user turns and short assistant replies.
Words come from a generated vocabulary of 50,000 pseudo-words drawn with Zipf-like frequencies (exponent 1.1), and a
third of the user turns open with one of 300 stock phrases, so n-grams repeat as in real prompts. The user turns
(what is indexed) hold ``--tokens`` tokens; the first conversations holding ``--small-tokens`` make the small
corpus. The test set: 30% copies of user turns, 20% perturbed copies (a window of a turn with about one token in
six replaced), 50% fresh text; ``--tests`` instances for the one-shot check, 10,000 for "search many".

The baseline (``baseline_scores``) is what a person would write for a one-shot check: a dict from each test n-gram
to where it occurs in the test set, then the training JSONL streamed unit by unit (``json.loads``, the same
tokenizer as genbench), each window of each unit looked up in that dict, and the covered test positions collected
per (instance, unit). Its memory is that of the test set, not of the corpus.

Measured, each side ``--runs`` times, in a fresh process per run:

* one shot: genbench's ``scan`` (one streaming pass, no index kept: the one-shot path); genbench's ``build_index``
  (JSONL read, tokenisation, shards, merge) + its first ``search`` (which reads the index's token file; a second
  search of the size would build the n-gram table), for indexes that are searched again; the baseline's one
  pass. Whole process (interpreter and imports included) and in-process figures, peak RSS of the whole scan
  process, of the index build and of the search (Linux: the peak is reset between them); and a floor under both
  genbench paths: the training file only read and parsed, as the scan reads it (pyarrow, the units' fields);
* search many: a 10,000-instance test set against the existing index of the large corpus (n-gram table built by an
  untimed second search), in process, with its peak RSS.

Best scores and best units must be identical to the baseline's on every instance. Throughput is training tokens
per wall second of the whole process. Results: ``benchmarks/results/contamination.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ratio, row, summary, versions, write_results  # noqa: E402

SEARCH_MANY_TESTS = 10_000
VOCABULARY = 50_000
ZIPF_EXPONENT = 1.1
STOCK_PHRASES = 300


# ---------------------------------------------------------------------------------------------- data generation
def _words(rng: np.random.Generator) -> np.ndarray:
    """``VOCABULARY`` distinct pseudo-words of 2 to 8 letters (drawn all at once)."""
    lengths = rng.integers(2, 9, size=VOCABULARY * 2)
    letters = rng.integers(ord("a"), ord("z") + 1, size=int(lengths.sum()), dtype=np.uint8).tobytes().decode("ascii")
    ends = np.cumsum(lengths)
    spans = zip((ends - lengths).tolist(), ends.tolist(), strict=True)
    distinct = dict.fromkeys(letters[start:end] for start, end in spans)
    return np.array(sorted(list(distinct)[:VOCABULARY]))


def generate(directory: Path, user_tokens: int, tests: int, seed: int = 0) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    words = _words(rng)
    weights = 1.0 / np.arange(1, VOCABULARY + 1) ** ZIPF_EXPONENT
    weights /= weights.sum()
    phrases = [
        " ".join(words[rng.choice(VOCABULARY, size=int(rng.integers(3, 7)), p=weights)]) for _ in range(STOCK_PHRASES)
    ]
    target = user_tokens
    user_turns: list[str] = []
    lines: list[str] = []
    tokens = 0
    # Drawing from precomputed pools: rng.choice with p= re-derives the distribution on every call.
    pool = rng.choice(VOCABULARY, size=target + min(target, 1_000_000), p=weights)
    replies = rng.choice(VOCABULARY, size=min(2_000_000, target + 100_000), p=weights)
    cursor = 0
    while tokens < target:
        messages = []
        for _ in range(int(rng.integers(1, 4))):
            length = int(rng.integers(8, 48))
            body = words[pool[cursor : cursor + length]]
            cursor = (cursor + length) % (len(pool) - 64)
            text = " ".join(body)
            if rng.random() < 1 / 3:
                text = phrases[int(rng.integers(STOCK_PHRASES))] + " " + text
            text = text[0].upper() + text[1:] + ("?" if rng.random() < 0.5 else ".")
            tokens += text.count(" ") + 1
            user_turns.append(text)
            start = int(rng.integers(len(replies) - 16))
            reply = " ".join(words[replies[start : start + int(rng.integers(4, 16))]])
            messages += [{"role": "user", "content": text}, {"role": "assistant", "content": reply}]
        lines.append(json.dumps({"id": len(lines), "messages": messages}))
    train = directory / "train.jsonl"
    train.write_text("\n".join(lines) + "\n", encoding="utf-8")

    count = tests
    tests = []
    for number in range(count):
        kind = number % 10
        if kind < 3:
            tests.append(user_turns[int(rng.integers(len(user_turns)))])
        elif kind < 5:
            source = user_turns[int(rng.integers(len(user_turns)))].split()
            begin = int(rng.integers(0, max(len(source) // 3, 1)))
            window = source[begin : begin + int(rng.integers(12, 40))]
            for position in range(len(window)):
                if rng.random() < 1 / 6:
                    window[position] = str(words[int(rng.integers(VOCABULARY))])
            tests.append(" ".join(window))
        else:
            start = int(rng.integers(len(replies) - 40))
            tests.append(" ".join(words[replies[start : start + int(rng.integers(10, 40))]]))
    (directory / "test.jsonl").write_text("".join(json.dumps({"input": t}) + "\n" for t in tests), encoding="utf-8")
    return {"conversations": len(lines), "user_turns": len(user_turns), "test_instances": count}


def write_subset(directory: Path, tokens: int) -> None:
    """``subset.jsonl``: the first conversations of ``train.jsonl`` holding about ``tokens`` user tokens."""
    from genbench.contamination._analysis import tokenize

    kept, total = [], 0
    with open(directory / "train.jsonl", encoding="utf-8") as handle:
        for line in handle:
            if total >= tokens:
                break
            kept.append(line)
            row = json.loads(line)
            total += sum(len(tokenize(m["content"])) for m in row["messages"] if m["role"] == "user")
    (directory / "subset.jsonl").write_text("".join(kept), encoding="utf-8")


# ---------------------------------------------------------------------------------------------- memory
def _peak_rss_mb() -> float:
    """This process's peak resident memory (Linux VmHWM: the process image's own, not carried over fork)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _reset_peak_rss() -> bool:
    """Reset VmHWM to the current resident size (Linux >= 4.0), so that the next phase's peak is its own."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def _test_texts(directory: Path, count: int) -> list[str]:
    with open(directory / "test.jsonl", encoding="utf-8") as handle:
        return [json.loads(line)["input"] for _, line in zip(range(count), handle, strict=False)]


# ---------------------------------------------------------------------------------------------- phases
def phase_genbench(directory: Path, train: str, index_dir: str, n: int, tests: int, out: str) -> dict[str, Any]:
    """One shot with genbench: index build, then its first search (the token file read past the test windows)."""
    started = time.perf_counter()
    from genbench.contamination import TestSet, build_index, search

    texts = _test_texts(directory, tests)
    imported = time.perf_counter()
    (manifest,) = build_index(str(directory / train), index_dir=index_dir, rebuild=True)
    built = time.perf_counter()
    build_peak = _peak_rss_mb()
    separate = _reset_peak_rss()
    report = search(
        str(directory / train), test_sets=[TestSet.from_texts("bench", texts)], ngram_size=n, index_dir=index_dir
    )
    searched = time.perf_counter()
    result = report.results[0]
    best = [(i.raw_score, i.matches[0].unit_id if i.matches else -1) for i in result.instances]
    Path(out).write_text(json.dumps(best))
    return {
        "import_s": imported - started,
        "build_s": built - imported,
        "search_s": searched - built,
        "inside_s": searched - imported,
        "build_peak_mb": build_peak,
        "search_peak_mb": _peak_rss_mb() if separate else None,
        "tokens": manifest["counts"]["tokens"],
    }


def phase_scan(directory: Path, train: str, n: int, tests: int, out: str) -> dict[str, Any]:
    """One shot with genbench's streaming scan (no index)."""
    started = time.perf_counter()
    from genbench.contamination import TestSet, scan

    texts = _test_texts(directory, tests)
    imported = time.perf_counter()
    report = scan(str(directory / train), test_sets=[TestSet.from_texts("bench", texts)], ngram_size=n)
    scanned = time.perf_counter()
    result = report.results[0]
    best = [(i.raw_score, i.matches[0].unit_id if i.matches else -1) for i in result.instances]
    Path(out).write_text(json.dumps(best))
    manifest = next(iter(report.manifests.values()))
    return {
        "import_s": imported - started,
        "inside_s": scanned - imported,
        "peak_mb": _peak_rss_mb(),
        "tokens": manifest["counts"]["tokens"],
    }


def phase_parse(directory: Path, train: str) -> dict[str, Any]:
    """The least that any reading of the training file through pyarrow costs (a floor under the scan and the
    index build alike): the file read and parsed as the scan reads it (only the units' fields, threads on), no
    tokens, no fingerprint."""
    started = time.perf_counter()
    from genbench.contamination._training_data import UnitSpec, parse_unit_lines

    imported = time.perf_counter()
    data = (directory / train).read_bytes()
    table = parse_unit_lines(data, data.count(b"\n"), UnitSpec(), projected_first=True)
    if table is None:
        raise SystemExit(f"{train}: pyarrow could not read it")
    return {"import_s": imported - started, "inside_s": time.perf_counter() - imported, "rows": table.num_rows}


def phase_search_many(directory: Path, train: str, index_dir: str, n: int, tests: int) -> dict[str, Any]:
    """Search an existing index (n-gram table present) with a large test set."""
    from genbench.contamination import TestSet, search

    texts = _test_texts(directory, tests)
    _reset_peak_rss()
    started = time.perf_counter()
    search(str(directory / train), test_sets=[TestSet.from_texts("bench", texts)], ngram_size=n, index_dir=index_dir)
    return {"search_s": time.perf_counter() - started, "search_peak_mb": _peak_rss_mb(), "instances": len(texts)}


def baseline_scores(train_path: Path, texts: list[str], n: int) -> list[tuple[float, int]]:
    """Best (score, unit) per test text: a dict of the test n-grams, the training units streamed past it."""
    from genbench.contamination._analysis import tokenize

    test_tokens = [tokenize(text) for text in texts]
    where: dict[tuple[str, ...], list[tuple[int, int]]] = {}
    for instance, tokens in enumerate(test_tokens):
        for start, gram in enumerate(zip(*(tokens[k:] for k in range(n)), strict=False)):
            where.setdefault(gram, []).append((instance, start))
    covered: dict[tuple[int, int], set[int]] = {}
    unit = 0
    with open(train_path, encoding="utf-8") as handle:
        for line in handle:
            for message in json.loads(line)["messages"]:
                if message["role"] != "user":
                    continue
                tokens = tokenize(message["content"])
                for gram in zip(*(tokens[k:] for k in range(n)), strict=False):
                    hits = where.get(gram)
                    if hits is not None:
                        for instance, start in hits:
                            covered.setdefault((instance, unit), set()).update(range(start, start + n))
                unit += 1
    best = [(0.0, -1)] * len(texts)
    for (instance, unit_id), positions in sorted(covered.items()):
        score = len(positions) / len(test_tokens[instance])
        if score > best[instance][0]:
            best[instance] = (score, unit_id)
    return best


def phase_baseline(directory: Path, train: str, n: int, tests: int, out: str) -> dict[str, Any]:
    started = time.perf_counter()
    best = baseline_scores(directory / train, _test_texts(directory, tests), n)
    inside = time.perf_counter() - started
    Path(out).write_text(json.dumps(best))
    return {"inside_s": inside, "peak_mb": _peak_rss_mb()}


def _run_phase(args: list[str]) -> dict[str, Any]:
    """Run a phase in a fresh interpreter; adds its wall time (interpreter start and imports included)."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as handle:
        result_file = handle.name
    started = time.perf_counter()
    subprocess.run([sys.executable, __file__, "--phase", *args, "--result", result_file], check=True)
    wall = time.perf_counter() - started
    result = json.loads(Path(result_file).read_text())
    os.unlink(result_file)
    result["whole_s"] = wall
    return result


def _compare(ours_file: Path, theirs_file: Path) -> int:
    ours, theirs = json.loads(ours_file.read_text()), json.loads(theirs_file.read_text())
    if len(ours) != len(theirs):
        raise SystemExit("genbench and the baseline scored different numbers of instances")
    mismatches = sum(1 for a, b in zip(ours, theirs, strict=True) if a[0] != b[0] or (a[0] > 0 and a[1] != b[1]))
    if mismatches:
        raise SystemExit(f"{mismatches} instances score differently from the baseline")
    return len(ours)


def one_shot(work: Path, train: str, n: int, tests: int, runs: int) -> dict[str, Any]:
    """``runs`` one-shot checks of each side on ``train``; outputs compared on every run."""
    scan_runs, index_runs, base_runs, parse_runs = [], [], [], []
    for run in range(runs):
        base_runs.append(_run_phase(["baseline", str(work), train, str(n), str(tests), str(work / "theirs.json")]))
        scan_runs.append(_run_phase(["scan", str(work), train, str(n), str(tests), str(work / "scanned.json")]))
        checked = _compare(work / "scanned.json", work / "theirs.json")
        index_dir = work / f"indexes-{train}-{run}"
        index_runs.append(
            _run_phase(["genbench", str(work), train, str(index_dir), str(n), str(tests), str(work / "ours.json")])
        )
        shutil.rmtree(index_dir, ignore_errors=True)
        _compare(work / "ours.json", work / "theirs.json")
        # Last: a process that follows the baseline's pays more system time for its first allocations (0.2 -> 0.7 s
        # for the parse; seen after any long CPU-bound process here), and the floor is measured at its best.
        parse_runs.append(_run_phase(["parse", str(work), train]))
    tokens = scan_runs[0]["tokens"]
    scanned = {
        "whole_process": summary([r["whole_s"] for r in scan_runs]),
        "in_process": summary([r["inside_s"] for r in scan_runs]),
        "peak_mb": max(r["peak_mb"] for r in scan_runs),
    }
    indexed = {
        "whole_process": summary([r["whole_s"] for r in index_runs]),
        "in_process": summary([r["inside_s"] for r in index_runs]),
        "build_in_process": summary([r["build_s"] for r in index_runs]),
        "search_in_process": summary([r["search_s"] for r in index_runs]),
        "build_peak_mb": max(r["build_peak_mb"] for r in index_runs),
        "search_peak_mb": max((r["search_peak_mb"] or 0.0) for r in index_runs) or None,
    }
    parsed = {
        "whole_process": summary([r["whole_s"] for r in parse_runs]),
        "in_process": summary([r["inside_s"] for r in parse_runs]),
    }
    baseline = {
        "whole_process": summary([r["whole_s"] for r in base_runs]),
        "in_process": summary([r["inside_s"] for r in base_runs]),
        "peak_mb": max(r["peak_mb"] for r in base_runs),
    }
    return {
        "train_tokens": tokens,
        "test_instances": tests,
        "identical_instances": checked,
        "scan": scanned,
        "index_and_search": indexed,
        "parse_only": parsed,
        "baseline": baseline,
        "ratios": {
            "scan_whole_process": ratio(baseline["whole_process"], scanned["whole_process"]),
            "scan_in_process": ratio(baseline["in_process"], scanned["in_process"]),
            "index_whole_process": ratio(baseline["whole_process"], indexed["whole_process"]),
            "index_in_process": ratio(baseline["in_process"], indexed["in_process"]),
            "parse_only_whole_process": ratio(baseline["whole_process"], parsed["whole_process"]),
        },
        "train_tokens_per_s": {
            "scan_whole_process": tokens / scanned["whole_process"]["median"],
            "index_whole_process": tokens / indexed["whole_process"]["median"],
            "baseline_whole_process": tokens / baseline["whole_process"]["median"],
        },
    }


def _print_one_shot(label: str, figures: dict[str, Any]) -> None:
    scanned, indexed, base = figures["scan"], figures["index_and_search"], figures["baseline"]
    ratios = figures["ratios"]
    print(f"one shot, {label}: {figures['train_tokens']:,} train tokens, {figures['test_instances']:,} tests")
    print(row("genbench scan, whole process", scanned["whole_process"]))
    print(row("genbench scan, in process", scanned["in_process"]))
    print(row("genbench index + search, whole process", indexed["whole_process"]))
    print(row("  of which index build", indexed["build_in_process"]))
    print(row("  of which first search (token file read)", indexed["search_in_process"]))
    print(row("floor: the file parsed only (pyarrow), whole process", figures["parse_only"]["whole_process"]))
    print(row("baseline, whole process", base["whole_process"]))
    print(row("baseline, in process", base["in_process"]))
    print(
        f"  median ratios (baseline / genbench): scan {ratios['scan_whole_process']:.2f}x whole process, "
        f"{ratios['scan_in_process']:.2f}x in process; index + search {ratios['index_whole_process']:.2f}x whole "
        f"process (the parse alone {ratios['parse_only_whole_process']:.2f}x); "
        f"scan {figures['train_tokens_per_s']['scan_whole_process'] / 1e6:.1f}M train tokens/s; peak RSS: "
        f"scan {scanned['peak_mb']:.0f} MiB, index build {indexed['build_peak_mb']:.0f} MiB, search "
        f"{indexed['search_peak_mb'] or float('nan'):.0f} MiB, baseline {base['peak_mb']:.0f} MiB; identical on all "
        f"{figures['identical_instances']} instances"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, default=20_000_000, help="user-turn tokens of the large corpus")
    parser.add_argument("--small-tokens", type=int, default=2_000_000, help="user-turn tokens of the small corpus")
    parser.add_argument("--tests", type=int, default=2000, help="test instances of the one-shot check")
    parser.add_argument("--ngram-size", type=int, default=8)
    parser.add_argument("--runs", type=int, default=5, help="timed runs per figure and side")
    parser.add_argument("--keep", help="keep (and reuse) the data in this folder")
    parser.add_argument("--no-write", action="store_true", help="do not write benchmarks/results/")
    parser.add_argument("--phase", nargs="+", help=argparse.SUPPRESS)
    parser.add_argument("--result", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.phase:
        name, directory, train, *rest = options.phase
        if name == "genbench":
            result = phase_genbench(Path(directory), train, rest[0], int(rest[1]), int(rest[2]), rest[3])
        elif name == "scan":
            result = phase_scan(Path(directory), train, int(rest[0]), int(rest[1]), rest[2])
        elif name == "parse":
            result = phase_parse(Path(directory), train)
        elif name == "search-many":
            result = phase_search_many(Path(directory), train, rest[0], int(rest[1]), int(rest[2]))
        else:
            result = phase_baseline(Path(directory), train, int(rest[0]), int(rest[1]), rest[2])
        Path(options.result).write_text(json.dumps(result))
        return

    work = Path(options.keep or tempfile.mkdtemp(prefix="genbench-contamination-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    n = options.ngram_size
    try:
        stamp = work / "data.json"
        wanted = {"tokens": options.tokens, "small_tokens": options.small_tokens, "vocabulary": VOCABULARY, "v": 2}
        if stamp.exists() and json.loads(stamp.read_text()).get("wanted") == wanted:
            print(f"reusing the data in {work}", flush=True)
        else:
            print(f"generating {options.tokens:,} user-turn tokens in {work} ...", flush=True)
            generate(work, options.tokens, SEARCH_MANY_TESTS)
            write_subset(work, options.small_tokens)
            stamp.write_text(json.dumps({"wanted": wanted}))
        payload: dict[str, Any] = {
            "workload": {"ngram_size": n, "runs": options.runs, "cpus": os.cpu_count()},
            "versions": versions("genbench", "numpy", "pyarrow"),
        }
        for label, train in (("large corpus", "train.jsonl"), ("small corpus", "subset.jsonl")):
            figures = one_shot(work, train, n, options.tests, options.runs)
            payload[f"one_shot_{label.split()[0]}"] = figures
            _print_one_shot(label, figures)

        index_dir = work / "indexes-search-many"
        _run_phase(["genbench", str(work), "train.jsonl", str(index_dir), str(n), "10", str(work / "ignored.json")])
        # The first search of a size reads the token file; this second one builds the n-gram table the timed use.
        _run_phase(["search-many", str(work), "train.jsonl", str(index_dir), str(n), "10"])
        many = [
            _run_phase(["search-many", str(work), "train.jsonl", str(index_dir), str(n), str(SEARCH_MANY_TESTS)])
            for _ in range(options.runs)
        ]
        payload["search_many"] = {
            "test_instances": SEARCH_MANY_TESTS,
            "in_process": summary([r["search_s"] for r in many]),
            "whole_process": summary([r["whole_s"] for r in many]),
            "peak_mb": max(r["search_peak_mb"] for r in many),
        }
        print(f"search many: {SEARCH_MANY_TESTS:,} tests against the existing index of the large corpus")
        print(row("genbench, in process", payload["search_many"]["in_process"]))
        print(row("genbench, whole process", payload["search_many"]["whole_process"]))
        if not options.no_write:
            print(f"written {write_results('contamination', payload)}")
    finally:
        if not options.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
