"""Time config evaluation in the limited jsonnet worker against the same jsonnet library in this process.

Usage::

    python benchmarks/config_loading.py [--configs 100] [--repeats 3]

Writes ``--configs`` task configs (the size of a real community config: comments, a metric list, a prompt builder)
into a temporary directory and times, per config:

- ``in-process``: ``_gojsonnet.evaluate_file`` in this process, as the original framework evaluated configs (with
  its C++ library; no memory or time limit: a bomb aborts the process);
- ``sandboxed``: ``genbench.config.evaluate_jsonnet`` (read, checked for encoding, evaluated in the worker under
  ``RLIMIT_AS`` with a deadline); the first call also starts the worker, reported on its own;
- ``load_task_config``: the whole load (evaluation, leniency pass, schema, rules).

The overhead of the sandbox is ``sandboxed - in-process`` per config, printed in ms and as a ratio.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

CONFIG = """{
    name: 'Task %(n)d',
    // A description, keywords and authors, as real configs have them.
    description: 'A generalisation task used to time config loading (%(n)d).',
    keywords: ['non-i.i.d. generalisation', 'o.o.d. generalisation', 'benchmark'],
    authors: ['Ada Lovelace', 'Alan Turing'],
    data_source: {
        type: 'manual',
        test: 'https://example.org/data/test_%(n)d.jsonl',
        train: 'https://example.org/data/train_%(n)d.jsonl',
    },
    has_train_set: true,
    task_type: 'multiple_choice',
    field_mapping: {input: 'text', target: 'label', target_options: 'options'},
    evaluation_metrics: [
        {hf_id: 'accuracy', best_score: 1.0, git_commit_sha: '34d6add55811828baef83e0d7c6826e2193f7b6a'},
        {hf_id: 'f1', best_score: 1.0, compute_extra_kwargs: {average: 'macro'}},
    ],
    preparation_strategies: {
        finetuning: {objective: 'maximum_likelihood'},
        prompt_based_testing: {
            prompt_builder: {
                instruction_zero_shot: 'Classify the text.\\n',
                input_prefix: 'Text: ',
                output_prefix: '\\nLabel: ',
            },
        },
    },
}
"""


def _best(times: list[list[float]]) -> list[float]:
    """Per config, the fastest of the repeats (the least disturbed by other load on the machine)."""
    return [min(column) for column in zip(*times, strict=True)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    import _gojsonnet

    from genbench.config import evaluate_jsonnet, load_task_config
    from genbench.config._jsonnet import stop_worker

    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for n in range(args.configs):
            task_dir = Path(tmp, f"task_{n}")
            task_dir.mkdir()
            (task_dir / "config.jsonnet").write_text(CONFIG % {"n": n})
            paths.append(task_dir / "config.jsonnet")

        stop_worker()
        started = time.perf_counter()
        evaluate_jsonnet(text="{}")
        worker_start = time.perf_counter() - started

        def timed(function) -> list[float]:
            result = []
            for path in paths:
                started = time.perf_counter()
                function(path)
                result.append(time.perf_counter() - started)
            return result

        in_process = _best([timed(lambda p: _gojsonnet.evaluate_file(str(p))) for _ in range(args.repeats)])
        sandboxed = _best([timed(lambda p: evaluate_jsonnet(path=p)) for _ in range(args.repeats)])
        loaded = _best([timed(lambda p: load_task_config(jsonnet_path=p)) for _ in range(args.repeats)])

    ms = 1000.0
    base, sand, full = (statistics.median(t) * ms for t in (in_process, sandboxed, loaded))
    print(f"configs: {args.configs}, repeats: {args.repeats} (per config: median of the best of the repeats)")
    print(f"worker start (once per process):   {worker_start * ms:7.2f} ms")
    print(f"in-process jsonnet (no limits):    {base:7.2f} ms per config")
    print(f"sandboxed evaluate_jsonnet:        {sand:7.2f} ms per config  ({sand / base:.2f}x in-process)")
    print(f"  overhead of the sandbox:         {sand - base:7.2f} ms per config")
    print(f"load_task_config (whole load):     {full:7.2f} ms per config")
    print(f"total for {args.configs} configs: in-process {sum(in_process):.2f} s, sandboxed {sum(sandboxed):.2f} s")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
