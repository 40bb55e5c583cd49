"""``genbench-cli merge-shards``: write the results files of a run from its shards (``run --shard I/N``)."""

from __future__ import annotations

from pathlib import Path

import click

from genbench.cli._run import print_task_result
from genbench.cli.params import output_dir_option


@click.command("merge-shards")
@click.argument("shards", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False, path_type=Path))
@output_dir_option(required=True, help="Results go to DIR/<model>/<settings>/<task>.json, as one process's run.")
def merge_shards(shards: tuple[Path, ...], output_dir: Path) -> None:
    """Write the results files of a sharded run from its shards' answers, as one process's run writes them.

    SHARDS are the shards' folders (DIR/shards/<run>/shard-I-of-N) or folders holding them (DIR/shards/<run>).
    Shards of different runs, missing or unfinished shards are refused, and named. No model is loaded.

    \b
    Example:
      for i in 1 2 3 4; do genbench-cli run -m hf:gpt2 -t all --shard $i/4 -o results & done; wait
      genbench-cli merge-shards results/shards/* -o results
    """
    from genbench.runs._shard_merge import merge_shards as merge

    for task_run in merge(list(shards), output_dir):
        print_task_result(task_run.task_id, task_run.document, task_run.results_path, task_run.replaced)
