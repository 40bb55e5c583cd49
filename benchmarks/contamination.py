"""Time contamination checks: the embedded n-gram index against a plain Python n-gram-set implementation.

Usage::

    python benchmarks/contamination.py [--scale 1.0] [--ngram-size 8] [--baseline-tokens 2000000] [--keep DIR]

Data (seeded): chat conversations in a JSONL file, each with one to three user turns and short assistant replies.
Words come from a generated vocabulary of 50,000 pseudo-words drawn with Zipf-like frequencies (exponent 1.1), and a
third of the user turns open with one of 300 stock phrases, so n-grams repeat as in real prompts. At ``--scale 1``
the user turns (what is indexed) hold about 20M tokens. The test set has 10,000 instances (times the scale): 30%
copied from user turns, 20% perturbed copies (a window of a turn with about one token in six replaced), 50% fresh.

Measured, each phase in its own process (so peak RSS is the phase's own): the index build (JSONL read,
tokenisation, shard checkpoints, merge), the first n-gram search (which builds the n-gram table), a second search
(the table reused), and the baseline. Throughput is training tokens per second of wall time and per CPU second
(user + system, all threads: pyarrow reads JSON with several threads).

The baseline is what a person would write: read the JSONL with ``json.loads``, tokenise with the same analyzer,
an inverted index ``dict[tuple[str, ...], set[int]]`` from each n-gram to its units, and per test instance a
``dict[unit, set[position]]`` of matched tokens. It runs on the first ``--baseline-tokens`` training tokens (it
needs several GB per 10M tokens), where the embedded index runs too and both must give identical scores and best
units; its time on the full corpus is extrapolated linearly in the number of training tokens (the build is linear;
the search grows with posting-list lengths, at least linearly), which is stated in the output.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

VOCABULARY = 50_000
ZIPF_EXPONENT = 1.1
STOCK_PHRASES = 300
FULL_USER_TOKENS = 20_500_000
FULL_TEST_INSTANCES = 10_000


# ---------------------------------------------------------------------------------------------- data generation
def _words(rng: np.random.Generator) -> np.ndarray:
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    lengths = rng.integers(2, 9, size=VOCABULARY)
    words = {"".join(rng.choice(letters, size=length)) for length in lengths}
    while len(words) < VOCABULARY:
        words.add("".join(rng.choice(letters, size=int(rng.integers(3, 10)))))
    return np.array(sorted(words)[:VOCABULARY])


def generate(directory: Path, scale: float, seed: int = 0) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    words = _words(rng)
    weights = 1.0 / np.arange(1, VOCABULARY + 1) ** ZIPF_EXPONENT
    weights /= weights.sum()
    phrases = [
        " ".join(words[rng.choice(VOCABULARY, size=int(rng.integers(3, 7)), p=weights)]) for _ in range(STOCK_PHRASES)
    ]
    target = int(FULL_USER_TOKENS * scale)
    user_turns: list[str] = []
    lines: list[str] = []
    tokens = 0
    # Drawing from precomputed pools: rng.choice with p= re-derives the distribution on every call.
    pool = rng.choice(VOCABULARY, size=target + 1_000_000, p=weights)
    replies = rng.choice(VOCABULARY, size=2_000_000, p=weights)
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

    count = max(int(FULL_TEST_INSTANCES * scale), 100)
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


def write_subset(directory: Path, tokens: int) -> dict[str, Any]:
    """The first conversations of train.jsonl holding about ``tokens`` user tokens."""
    from genbench.contamination.analysis import tokenize

    kept, total = [], 0
    with open(directory / "train.jsonl", encoding="utf-8") as handle:
        for line in handle:
            if total >= tokens:
                break
            kept.append(line)
            row = json.loads(line)
            total += sum(len(tokenize(m["content"])) for m in row["messages"] if m["role"] == "user")
    (directory / "subset.jsonl").write_text("".join(kept), encoding="utf-8")
    return {"conversations": len(kept), "tokens": total}


# ---------------------------------------------------------------------------------------------- phases
def _test_set(directory: Path) -> Any:
    from genbench.contamination import TestSet

    with open(directory / "test.jsonl", encoding="utf-8") as handle:
        rows = [json.loads(line)["input"] for line in handle]
    return TestSet.from_texts("bench", rows)


def _peak_rss_mb() -> float:
    """This process's peak resident memory. Linux's VmHWM belongs to the process image; ru_maxrss would carry the
    benchmark driver's peak across fork and exec."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _resident_mb() -> dict[str, float]:
    """Resident memory now: anonymous (heap) and file-backed (e.g. memory-mapped index files), Linux only."""
    try:
        lines = Path("/proc/self/status").read_text().splitlines()
    except OSError:
        return {}
    return {
        line.split(":")[0]: int(line.split()[1]) / 1024 for line in lines if line.startswith(("RssAnon", "RssFile"))
    }


def phase_build(directory: Path, train: str, index_dir: str) -> dict[str, Any]:
    started = time.perf_counter()
    from genbench.contamination import build_index

    (manifest,) = build_index(str(directory / train), index_dir=index_dir, rebuild=True)
    return {
        "inner_s": time.perf_counter() - started,
        "rss_mb": _peak_rss_mb(),
        "tokens": manifest["counts"]["tokens"],
        "units": manifest["counts"]["units"],
        "vocabulary": manifest["counts"]["vocabulary"],
    }


def phase_search(directory: Path, train: str, index_dir: str, n: int, scores_out: str | None) -> dict[str, Any]:
    started = time.perf_counter()
    from genbench.contamination import search

    test_set = _test_set(directory)
    report = search(str(directory / train), test_sets=[test_set], ngram_size=n, index_dir=index_dir)
    result = report.results[0]
    out: dict[str, Any] = {
        "inner_s": time.perf_counter() - started,
        "rss_mb": _peak_rss_mb(),
        "resident": _resident_mb(),
        "score": result.score,
        "test_tokens": sum(len(r[0].split()) for r in test_set.rows),
    }
    if scores_out == "trace":
        # Once more under tracemalloc (after the timing: tracing slows allocation down): what the search allocates.
        import tracemalloc

        tracemalloc.start()
        search(str(directory / train), test_sets=[test_set], ngram_size=n, index_dir=index_dir)
        out["tracemalloc_peak"] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    elif scores_out:
        best = [(i.raw_score, i.matches[0].unit_id if i.matches else -1) for i in result.instances]
        Path(scores_out).write_text(json.dumps(best))
    return out


def phase_baseline(directory: Path, train: str, n: int, scores_out: str) -> dict[str, Any]:
    from genbench.contamination.analysis import tokenize

    started = time.perf_counter()
    units: list[list[str]] = []
    with open(directory / train, encoding="utf-8") as handle:
        for line in handle:
            for message in json.loads(line)["messages"]:
                if message["role"] == "user":
                    units.append(tokenize(message["content"]))
    index: dict[tuple[str, ...], set[int]] = defaultdict(set)
    for unit_id, tokens in enumerate(units):
        for start in range(len(tokens) - n + 1):
            index[tuple(tokens[start : start + n])].add(unit_id)
    built = time.perf_counter()
    best = []
    with open(directory / "test.jsonl", encoding="utf-8") as handle:
        texts = [json.loads(line)["input"] for line in handle]
    for text in texts:
        tokens = tokenize(text)
        covered: dict[int, set[int]] = defaultdict(set)
        for start in range(len(tokens) - n + 1):
            for unit_id in index.get(tuple(tokens[start : start + n]), ()):
                covered[unit_id].update(range(start, start + n))
        score, unit = 0.0, -1
        for unit_id in sorted(covered):
            value = len(covered[unit_id]) / len(tokens)
            if value > score:
                score, unit = value, unit_id
        best.append((score, unit))
    Path(scores_out).write_text(json.dumps(best))
    return {
        "build_s": built - started,
        "search_s": time.perf_counter() - built,
        "tokens": sum(len(t) for t in units),
        "rss_mb": _peak_rss_mb(),
    }


def _run_phase(args: list[str]) -> dict[str, Any]:
    """Run a phase in a fresh interpreter; its wall time, CPU time and peak RSS."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as handle:
        result_file = handle.name
    started = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, __file__, "--phase", *args, "--result", result_file], check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter() - started
    result = json.loads(Path(result_file).read_text())
    os.unlink(result_file)
    result.update(wall_s=wall, cpu_s=(after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
    return result


def _dir_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0, help="Fraction of the full size (20M tokens, 10k tests).")
    parser.add_argument("--ngram-size", type=int, default=8)
    parser.add_argument("--baseline-tokens", type=int, default=2_000_000)
    parser.add_argument("--keep", help="Keep the data and indexes in this folder.")
    parser.add_argument("--phase", nargs="+", help=argparse.SUPPRESS)
    parser.add_argument("--result", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.phase:
        name, *rest = options.phase
        directory = Path(rest[0])
        if name == "build":
            result = phase_build(directory, rest[1], rest[2])
        elif name == "search":
            result = phase_search(directory, rest[1], rest[2], int(rest[3]), rest[4] if len(rest) > 4 else None)
        else:
            result = phase_baseline(directory, rest[1], int(rest[2]), rest[3])
        Path(options.result).write_text(json.dumps(result))
        return

    work = Path(options.keep or tempfile.mkdtemp(prefix="genbench-contamination-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    n = options.ngram_size
    started = time.perf_counter()
    stamp = work / "data.json"
    wanted = {"scale": options.scale, "baseline_tokens": options.baseline_tokens, "vocabulary": VOCABULARY}
    if stamp.exists() and json.loads(stamp.read_text()).get("wanted") == wanted:
        data = json.loads(stamp.read_text())["data"]
        print(f"Reusing the data in {work}", flush=True)
    else:
        print(f"Generating data (scale {options.scale}) in {work} ...", flush=True)
        data = generate(work, options.scale)
        write_subset(work, options.baseline_tokens)
        stamp.write_text(json.dumps({"wanted": wanted, "data": data}))
    print(
        f"  {data['conversations']} conversations, {data['user_turns']} user turns, {data['test_instances']} test "
        f"instances ({time.perf_counter() - started:.1f}s)",
        flush=True,
    )

    index_dir = str(work / "indexes")
    build = _run_phase(["build", str(work), "train.jsonl", index_dir])
    first = _run_phase(["search", str(work), "train.jsonl", index_dir, str(n)])
    again = _run_phase(["search", str(work), "train.jsonl", index_dir, str(n), "trace"])
    tokens = build["tokens"]
    index_bytes = _dir_size(Path(index_dir))

    sub_build = _run_phase(["build", str(work), "subset.jsonl", index_dir])
    sub_search = _run_phase(["search", str(work), "subset.jsonl", index_dir, str(n), str(work / "ours.json")])
    baseline = _run_phase(["baseline", str(work), "subset.jsonl", str(n), str(work / "theirs.json")])
    ours = json.loads((work / "ours.json").read_text())
    theirs = json.loads((work / "theirs.json").read_text())
    assert len(ours) == len(theirs)
    mismatches = sum(1 for a, b in zip(ours, theirs, strict=True) if a[0] != b[0] or (a[0] > 0 and a[1] != b[1]))
    assert mismatches == 0, f"{mismatches} instances score differently from the baseline"

    e2e = build["wall_s"] + first["wall_s"]
    e2e_cpu = build["cpu_s"] + first["cpu_s"]
    sub_tokens = sub_build["tokens"]
    ours_sub = sub_build["wall_s"] + sub_search["wall_s"]
    base_sub = baseline["build_s"] + baseline["search_s"]
    base_full = base_sub * tokens / sub_tokens

    print(
        f"\nTraining tokens (indexed user turns): {tokens:,}; units: {build['units']:,}; vocabulary: "
        f"{build['vocabulary']:,}; test instances: {data['test_instances']:,} ({first['test_tokens']:,} tokens); "
        f"n = {n}; index on disk (tokens + {n}-gram table): {index_bytes / 2**20:.0f} MiB\n"
    )
    header = f"  {'phase':<40}{'process':>9}{'inside':>9}{'cpu':>9}{'train tok/s':>13}{'peak RSS':>10}"
    print(header)
    for name, phase in [("index build", build), (f"first search ({n}-gram table built)", first)]:
        print(
            f"  {name:<40}{phase['wall_s']:>8.2f}s{phase['inner_s']:>8.2f}s{phase['cpu_s']:>8.2f}s"
            f"{tokens / phase['wall_s'] / 1e6:>11.2f}M{phase['rss_mb']:>7.0f}MiB"
        )
    print(
        f"  {'end to end (build + first search)':<40}{e2e:>8.2f}s{'':>9}{e2e_cpu:>8.2f}s{tokens / e2e / 1e6:>11.2f}M"
    )
    print(
        f"  {'search again (table reused)':<40}{'':>9}{again['inner_s']:>8.2f}s{'':>22}{again['rss_mb']:>7.0f}MiB"
        f"  ({first['test_tokens'] / again['inner_s'] / 1e3:.0f}k test tokens/s)"
    )
    print(
        "  (process: wall time of the phase's own python process, interpreter start and imports included; inside: "
        "the library calls)"
    )
    resident = again.get("resident", {})
    print(
        f"\nSearch memory: tracemalloc peak {again['tracemalloc_peak'] / 2**20:.0f} MiB of Python and numpy "
        f"allocations for a {index_bytes / 2**20:.0f} MiB index, which is memory-mapped (peak RSS above counts the "
        f"mapped pages read); resident after the search: {resident.get('RssAnon', float('nan')):.0f} MiB anonymous "
        f"(interpreter and libraries included), {resident.get('RssFile', float('nan')):.0f} MiB file-backed"
    )
    print(f"\nBaseline (dict of n-gram sets) on the first {sub_tokens:,} training tokens, same test set:")
    print(
        f"  embedded: build {sub_build['wall_s']:.2f}s + search {sub_search['wall_s']:.2f}s = {ours_sub:.2f}s "
        f"(processes; inside {sub_build['inner_s'] + sub_search['inner_s']:.2f}s)"
    )
    print(
        f"  baseline: read + index {baseline['build_s']:.2f}s + search {baseline['search_s']:.2f}s = {base_sub:.2f}s, "
        f"peak RSS {baseline['rss_mb']:.0f} MiB"
    )
    print(f"  identical scores and best units on all {len(ours)} instances")
    print(f"  ratio on the subset (measured): {base_sub / ours_sub:.1f}x")
    print(
        f"  ratio on the full corpus: baseline {base_full:.0f}s (extrapolated linearly from the subset; its memory "
        f"would be about {baseline['rss_mb'] * tokens / sub_tokens / 1024:.1f} GiB) vs embedded {e2e:.1f}s "
        f"(measured): {base_full / e2e:.1f}x"
    )
    print(
        f"\nTargets: >= 1M training tokens/s per core end to end: {tokens / e2e_cpu / 1e6:.2f}M per cpu-second "
        f"({tokens / e2e / 1e6:.2f}M per wall second); >= 5x the baseline: {base_full / e2e:.1f}x"
    )
    if not options.keep:
        import shutil

        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
