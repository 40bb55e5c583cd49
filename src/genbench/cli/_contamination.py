"""``genbench-cli contamination``: index training data, search test sets in it, decontaminate.

Options are spelt in kebab-case (``--ngram-size``); the original scripts' underscore spelling (``--ngram_size``) is a
hidden alias. Options taking several values accept them repeated (``--field a --field b``) or listed
(``--field a b``), as the original scripts did.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click

from genbench._core.errors import GenBenchError
from genbench._core.files import prepare_output_dir
from genbench._core.progress import progress_bars, progress_setting
from genbench.cli._output import dumps
from genbench.cli.params import (
    NAME,
    POSITIVE_INT,
    THRESHOLD,
    json_option,
    kebab_case_option,
    model_option,
    output_dir_option,
    progress_option,
    task_option,
)


def _option(name: str, **kwargs: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The option of parameter ``name``, spelt ``--ngram-size`` (``--ngram_size`` a hidden alias)."""
    return kebab_case_option(f"--{name.replace('_', '-')}", name, **kwargs)


class _ListOptionsCommand(click.Command):
    """Lets ``--opt a b c`` stand for ``--opt a --opt b --opt c`` for options with ``multiple=True``."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        multiple = {
            spelling
            for p in self.params
            if isinstance(p, click.Option) and p.multiple
            for spelling in (*p.opts, *getattr(p, "aliases", ()), *getattr(p, "deprecated_spellings", ()))
        }
        expanded: list[str] = []
        current: str | None = None
        awaiting_value = False
        for position, arg in enumerate(args):
            if arg == "--":
                expanded.extend(args[position:])
                break
            if arg.startswith("-") and len(arg) > 1:
                option = arg.split("=", 1)[0]
                current = option if option in multiple else None
                awaiting_value = current is not None and "=" not in arg
                expanded.append(arg)
            elif current is not None and not awaiting_value:
                expanded.extend([current, arg])
            else:
                expanded.append(arg)
                awaiting_value = False
        return super().parse_args(ctx, expanded)


def _errors_as_messages(command: Callable[..., Any]) -> Callable[..., Any]:
    """Turn genbench errors into one ``Error:`` line also when this group runs on its own (not under ``cli``)."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except GenBenchError as exc:
            raise click.ClickException(str(exc).strip() or type(exc).__name__) from None

    return wrapper


def _index_dir_option(command: Callable[..., Any]) -> Callable[..., Any]:
    return kebab_case_option(
        "--index-dir",
        "index_dir",
        type=click.Path(file_okay=False),
        help="Folder of the indexes (default: $GENBENCH_HOME/contamination or the user data folder).",
    )(command)


def _backend_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--backend``, ``--es-url`` and ``--es-ca-certs``."""
    for decorator in reversed(
        [
            _option(
                "backend",
                default="embedded",
                show_default=True,
                help="Index backend: embedded (files under --index-dir) or elasticsearch (a server).",
            ),
            _option("es_url", help="Elasticsearch URL (default: $GENBENCH_ES_URL, else http://localhost:9200)."),
            _option(
                "es_ca_certs",
                type=click.Path(dir_okay=False),
                help="CA certificate to verify Elasticsearch's TLS certificate (e.g. http_ca.crt).",
            ),
        ]
    ):
        command = decorator(command)
    return command


def _chosen_backend(backend: str, index_dir: str | None, **es_options: Any) -> Any:
    """The backend object for the CLI options (Elasticsearch options only apply to that backend)."""
    from genbench.contamination._backend_registry import create_backend

    given = {key: value for key, value in es_options.items() if value is not None}
    if backend == "embedded":
        if given:
            option = {"url": "es_url", "ca_certs": "es_ca_certs"}.get(next(iter(given)), next(iter(given)))
            raise click.UsageError(
                f"--{option.replace('_', '-')} applies to --backend elasticsearch, not to the embedded backend."
            )
        return create_backend(backend, index_dir=index_dir)
    if index_dir is not None:
        raise click.UsageError("--index-dir applies to the embedded backend; Elasticsearch keeps its own indexes.")
    return create_backend(backend, **given)


def _progress_option(command: Callable[..., Any]) -> Callable[..., Any]:
    return progress_option()(command)


def _mixer_option(what: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    return _option(
        "dataset_mixer_config",
        type=click.Path(dir_okay=False),
        help=f"Training config YAML whose dataset_mixer lists {what}.",
    )


def _test_set_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--dataset``, ``--split``, ``--field`` and ``--task``: the test sets to look up."""
    for decorator in reversed(
        [
            _option(
                "dataset",
                type=NAME,
                multiple=True,
                help="Test dataset (file, folder or cached Hub id); default: every registry task.",
            ),
            _option("split", type=NAME, default="test", show_default=True, help="Split of the test datasets."),
            _option("field", type=NAME, multiple=True, help="Field(s) of the test datasets to look up."),
            task_option(
                several=True, required=False, deprecated=(), help="Registry task ids to check (default: every task)."
            ),
        ]
    ):
        command = decorator(command)
    return command


def _match_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--ngram-size``, ``--match-threshold``, ``--output-dir``, ``--top-k`` and ``--decontaminate``."""
    for decorator in reversed(
        [
            _option("ngram_size", type=POSITIVE_INT, help="N-gram match of this size (default: exact match)."),
            _option(
                "match_threshold",
                type=THRESHOLD,
                help="Instance score 1 above this (strictly), else 0: a number in [0, 1].",
            ),
        ]
    ):
        command = decorator(command)
    return command


def _report_options(command: Callable[..., Any]) -> Callable[..., Any]:
    for decorator in reversed(
        [
            output_dir_option(aliases=("--output_dir",), required=True, help="Folder for the results."),
            json_option(help="Print the scores, the files written and the decontaminated datasets as JSON."),
            _option("top_k", type=POSITIVE_INT, default=1, show_default=True, help="Matches reported per instance."),
            _option("decontaminate", is_flag=True, help="Also write each training dataset without the matched rows."),
        ]
    ):
        command = decorator(command)
    return command


_PAST = {"index": "indexed", "scan": "scanned"}


def _unit_options(command: Callable[..., Any], verb: str) -> Callable[..., Any]:
    """``--messages-field``, ``--query-filter``, ``--query-field`` and ``--text-field``: what a training unit is."""
    for decorator in reversed(
        [
            _option(
                "messages_field",
                type=NAME,
                default="messages",
                show_default=True,
                help="Field holding the chat messages.",
            ),
            _option(
                "query_filter",
                default="role:user",
                show_default=True,
                help=f"key:value a message must have to be {_PAST[verb]} ('' for every message).",
            ),
            _option("query_field", type=NAME, default="content", show_default=True, help="Key of a message's text."),
            _option(
                "text_field",
                type=NAME,
                help=f"{verb.capitalize()} this text field, one unit per row, instead of messages.",
            ),
        ]
    ):
        command = decorator(command)
    return command


def _check_test_set_options(
    dataset: tuple[str, ...], field: tuple[str, ...], task_ids: tuple[str, ...] | None
) -> None:
    if dataset and not field:
        raise click.UsageError("Give the test datasets' field(s) to look up with --field.")
    if dataset and task_ids:
        raise click.UsageError("Give test datasets (--dataset) or registry tasks (--task), not both.")


def _test_sets(
    dataset: tuple[str, ...], split: str, field: tuple[str, ...], task_ids: tuple[str, ...] | None
) -> Iterator[Any]:
    """The test sets, loaded as they are taken: a search checks its indexes and their training data first."""
    from genbench.contamination import dataset_test_set, task_test_sets

    if dataset:
        yield from (dataset_test_set(name, split=split, fields=list(field)) for name in dataset)
    else:
        yield from task_test_sets(list(task_ids) if task_ids else None)


def _check_decontaminate(
    decontaminate: bool, ngram_size: int | None, match_threshold: float | None, index_type: str = "text"
) -> None:
    from genbench.contamination._index_backend import SearchMode

    mode = SearchMode.create(index_type=index_type, ngram_size=ngram_size, match_threshold=match_threshold)
    if decontaminate and not mode.can_decontaminate:
        raise click.UsageError(
            f"--decontaminate after an {mode.describe()} needs --match-threshold (which scores count as a match)."
        )


def _write_report(
    report: Any, output_dir: Path, decontaminate: bool, search_size: int | None = None, *, as_json: bool = False
) -> None:
    """Write the report's files, print the contamination table (or, with ``as_json``, one JSON document on stdout and
    the rest on stderr), decontaminate if asked."""
    from genbench.contamination import decontaminate as decontaminate_data

    written = report.write(output_dir)
    table = report.table()
    names = list(dict.fromkeys(result.test_set for result in report.results))

    def echo(line: str) -> None:
        click.echo(line, err=as_json)

    if not as_json:
        click.echo(f"Contamination scores ({report.mode.describe()}):")
        for source, scores in table.items():
            click.echo(f"  {source}")
            for name in names:
                click.echo(f"    {name}: {scores[name]:.4f}")
    cut = sum(result.truncated for result in report.results)
    if cut:
        echo(
            f"Warning: {cut} instances reached --search-size {search_size} hits (flagged truncated): their scores "
            "may be too low."
        )
    for result in report.results:
        if result.unmatchable:
            click.echo(f"Warning: {_unmatchable_message(result, report.mode)}", err=True)
    echo(f"Wrote {len(written)} files to {output_dir} (contamination_report.tsv, report.html, per-pair JSONL).")
    summaries = list(decontaminate_data(report, output_dir)) if decontaminate else []
    for summary in summaries:
        echo(
            f"{summary.dataset}: kept {summary.kept} + removed {summary.removed} = {summary.total} rows "
            f"-> {summary.output}"
        )
    if as_json:
        document = {
            "mode": report.mode.describe(),
            "scores": table,
            "files": [str(path) for path in written],
            "decontaminated": [
                {"dataset": s.dataset, "kept": s.kept, "removed": s.removed, "total": s.total, "output": str(s.output)}
                for s in summaries
            ],
        }
        click.echo(dumps(document), nl=False)


def _unmatchable_message(result: Any, mode: Any) -> str:
    """Why some instances of a test set scored 0 whatever the training data, and what to change."""
    from genbench.contamination._index_backend import unmatchable_example, why_unmatchable

    counted = f"{result.unmatchable} of {len(result.instances)} instances of {result.test_set} (vs {result.source})"
    if mode.ngram_size is not None:
        return (
            f"{counted} {why_unmatchable(mode)}, so no {mode.ngram_size}-gram can match them: they score 0 whatever "
            f"the training data (tokens are runs of letters and digits: {unmatchable_example(result.instances)}). "
            "Use a smaller "
            '--ngram-size, or an exact match (no --ngram-size). Marked "unmatchable" in the per-pair JSONL.'
        )
    return (
        f"{counted} {why_unmatchable(mode)}, which an exact match never matches: they score 0 whatever the training "
        'data. Choose other --field(s). Marked "unmatchable" in the per-pair JSONL.'
    )


@click.group("contamination")
def contamination() -> None:
    """Check test sets for contamination by training data, and decontaminate training data.

    First index the training data (`index`), then search test sets in it (`search`); or check once, keeping no
    index (`scan`).

    \b
    Example:
      genbench-cli contamination index --dataset train.jsonl
      genbench-cli contamination search --train-dataset-names train.jsonl --ngram-size 8 \\
          --match-threshold 0.5 --output-dir out
    """


@contamination.command("index", cls=_ListOptionsCommand)
@_option(
    "dataset",
    type=NAME,
    multiple=True,
    help="Training dataset: .jsonl/.parquet file, dataset folder or cached Hub id.",
)
@_mixer_option("datasets to index")
@_option("split", type=NAME, default="train", show_default=True, help="Split to index.")
@_option(
    "index_type",
    type=click.Choice(["text", "vector"]),
    default="text",
    show_default=True,
    help="text: exact and n-gram matches; vector: embedding matches.",
)
@model_option(
    type=NAME,
    metavar="PATH_OR_ID",
    help="Sentence-transformers model of a vector index (default: all-MiniLM-L6-v2, offline).",
)
@functools.partial(_unit_options, verb="index")
@_option(
    "max_batch_tokens",
    type=POSITIVE_INT,
    default=65_536,
    show_default=True,
    help="Embedding batch size in model tokens.",
)
@_option("shard_rows", type=POSITIVE_INT, help="Rows per build checkpoint.")
@_option(
    "ngram_size",
    type=POSITIVE_INT,
    multiple=True,
    help="Also build the n-gram table of this size now (otherwise the second search of that size does).",
)
@_option("rebuild", is_flag=True, help="Build again even if an up-to-date index exists.")
@_index_dir_option
@_backend_options
@_progress_option
@_errors_as_messages
def index(
    dataset: tuple[str, ...],
    dataset_mixer_config: str | None,
    split: str,
    index_type: str,
    model: str | None,
    messages_field: str,
    query_filter: str,
    query_field: str,
    text_field: str | None,
    max_batch_tokens: int,
    shard_rows: int | None,
    ngram_size: tuple[int, ...],
    rebuild: bool,
    index_dir: str | None,
    backend: str,
    es_url: str | None,
    es_ca_certs: str | None,
) -> None:
    """Index training datasets (one index per dataset; a stopped build resumes)."""
    from genbench.contamination import build_index

    if not dataset and dataset_mixer_config is None:
        raise click.UsageError("Give --dataset or --dataset-mixer-config.")
    chosen = _chosen_backend(backend, index_dir, url=es_url, ca_certs=es_ca_certs)
    if backend != "embedded" and ngram_size:
        raise click.UsageError("--ngram-size builds the embedded backend's n-gram tables; Elasticsearch needs none.")
    if shard_rows is not None:
        chosen.shard_rows = shard_rows
    manifests = build_index(
        list(dataset),
        dataset_mixer_config=dataset_mixer_config,
        split=split,
        index_type=index_type,
        model=model,
        messages_field=messages_field,
        query_filter=query_filter or None,
        query_field=query_field,
        text_field=text_field,
        index_dir=index_dir,
        max_batch_tokens=max_batch_tokens,
        ngram_sizes=ngram_size,
        rebuild=rebuild,
        progress=True,  # drawn as the one switch says (genbench-cli --progress/--no-progress)
        backend=chosen,
    )
    for manifest in manifests:
        counts = manifest["counts"]
        extra = f", {counts['tokens']} tokens" if "tokens" in counts else ""
        if manifest.get("ngram_tables"):
            extra += f"; n-gram tables: {', '.join(map(str, manifest['ngram_tables']))}"
        click.echo(
            f"{manifest['source']['name']}: index {manifest['name']} ({counts['rows']} rows, "
            f"{counts['units']} units{extra})"
        )


@contamination.command("search", cls=_ListOptionsCommand)
@_option("train_dataset_names", type=NAME, multiple=True, help="Indexed training datasets (names as indexed).")
@_mixer_option("the training datasets")
@_test_set_options
@_match_options
@_option(
    "index_type",
    type=click.Choice(["text", "vector"]),
    default="text",
    show_default=True,
    help="Search text indexes or vector (embedding) indexes.",
)
@model_option(type=NAME, metavar="PATH_OR_ID", help="Model of the vector indexes (default: the index's).")
@_report_options
@_index_dir_option
@_option(
    "verify",
    is_flag=True,
    help="Check the checksum of every file of the indexes first (embedded; else sizes and small files' checksums).",
)
@_backend_options
@_option(
    "search_size",
    type=click.IntRange(min=1),
    help="Elasticsearch: at most this many hits per query (default: all); instances reaching it are flagged "
    "truncated.",
)
@_option(
    "num_candidates",
    type=click.IntRange(min=1, max=10_000),
    help="Elasticsearch vector search: knn candidates per shard (default 1000).",
)
@_progress_option
@_errors_as_messages
def search(
    train_dataset_names: tuple[str, ...],
    dataset_mixer_config: str | None,
    dataset: tuple[str, ...],
    split: str,
    field: tuple[str, ...],
    task_ids: tuple[str, ...] | None,
    ngram_size: int | None,
    match_threshold: float | None,
    index_type: str,
    model: str | None,
    output_dir: Path,
    top_k: int,
    decontaminate: bool,
    as_json: bool,
    index_dir: str | None,
    verify: bool,
    backend: str,
    es_url: str | None,
    es_ca_certs: str | None,
    search_size: int | None,
    num_candidates: int | None,
) -> None:
    """Search test sets in training data indexes; write per-instance matches and the contamination table."""
    from genbench.contamination import search as search_indexes
    from genbench.contamination._workflow import training_datasets

    if not train_dataset_names and dataset_mixer_config is None:
        raise click.UsageError("Give --train-dataset-names or --dataset-mixer-config.")
    _check_test_set_options(dataset, field, task_ids)
    _check_decontaminate(decontaminate, ngram_size, match_threshold, index_type)
    prepare_output_dir(output_dir)  # before the search: an unwritable folder fails now, not after the work
    chosen = _chosen_backend(
        backend,
        index_dir,
        url=es_url,
        ca_certs=es_ca_certs,
        search_size=search_size,
        num_candidates=num_candidates,
    )
    # Each index is opened (a missing one is an error naming the existing ones) before the test sets are loaded:
    # the default test sets are those of every registry task, the slow part.
    for name in training_datasets(list(train_dataset_names), dataset_mixer_config):
        chosen.open(name, index_type=index_type, model=model).close()
    # first: datasets (imported now) gets the switch before the test sets load, so a pipe gets none of its bars
    click.get_current_context().with_resource(progress_bars(progress_setting(), import_libraries=True))
    report = search_indexes(
        list(train_dataset_names),
        dataset_mixer_config=dataset_mixer_config,
        test_sets=_test_sets(dataset, split, field, task_ids),
        ngram_size=ngram_size,
        match_threshold=match_threshold,
        index_type=index_type,
        model=model,
        index_dir=index_dir,
        top_k=top_k,
        progress=True,  # drawn as the one switch says (genbench-cli --progress/--no-progress)
        backend=chosen,
        verify=verify,
    )
    _write_report(report, output_dir, decontaminate, search_size, as_json=as_json)


@contamination.command("scan", cls=_ListOptionsCommand)
@_option(
    "train_dataset_names",
    type=NAME,
    multiple=True,
    help="Training datasets: .jsonl/.parquet file, dataset folder or cached Hub id.",
)
@_mixer_option("the training datasets")
@_option("train_split", type=NAME, default="train", show_default=True, help="Split of the training datasets.")
@_test_set_options
@_match_options
@_report_options
@functools.partial(_unit_options, verb="scan")
@_progress_option
@_errors_as_messages
def scan(
    train_dataset_names: tuple[str, ...],
    dataset_mixer_config: str | None,
    train_split: str,
    dataset: tuple[str, ...],
    split: str,
    field: tuple[str, ...],
    task_ids: tuple[str, ...] | None,
    ngram_size: int | None,
    match_threshold: float | None,
    output_dir: Path,
    top_k: int,
    decontaminate: bool,
    as_json: bool,
    messages_field: str,
    query_filter: str,
    query_field: str,
    text_field: str | None,
) -> None:
    """Check test sets against training data in one streaming pass, keeping no index (exact and n-gram matches).

    The same results and files as `index` then `search`; use it for a check you run once.
    """
    from genbench.contamination._oneshot import scan as scan_datasets

    if not train_dataset_names and dataset_mixer_config is None:
        raise click.UsageError("Give --train-dataset-names or --dataset-mixer-config.")
    _check_test_set_options(dataset, field, task_ids)
    _check_decontaminate(decontaminate, ngram_size, match_threshold)
    prepare_output_dir(output_dir)  # before the scan: an unwritable folder fails now, not after the work
    # first: datasets (imported now) gets the switch before the test sets load, so a pipe gets none of its bars
    click.get_current_context().with_resource(progress_bars(progress_setting(), import_libraries=True))
    report = scan_datasets(
        list(train_dataset_names),
        dataset_mixer_config=dataset_mixer_config,
        split=train_split,
        test_sets=_test_sets(dataset, split, field, task_ids),
        ngram_size=ngram_size,
        match_threshold=match_threshold,
        top_k=top_k,
        messages_field=messages_field,
        query_filter=query_filter or None,
        query_field=query_field,
        text_field=text_field,
        progress=True,  # drawn as the one switch says (genbench-cli --progress/--no-progress)
    )
    _write_report(report, output_dir, decontaminate, as_json=as_json)


@contamination.command("list")
@_index_dir_option
@_backend_options
@_errors_as_messages
def list_indexes(index_dir: str | None, backend: str, es_url: str | None, es_ca_certs: str | None) -> None:
    """List the indexes; a damaged one is shown as DAMAGED, with the reason and the command that rebuilds it."""
    chosen = _chosen_backend(backend, index_dir, url=es_url, ca_certs=es_ca_certs)
    damaged = {entry["name"]: entry for entry in chosen.damaged_indexes()}
    manifests = [manifest for manifest in chosen.list_indexes() if manifest.get("name") not in damaged]
    if not manifests and not damaged:
        where = getattr(chosen, "index_dir", None) or getattr(chosen, "url", backend)
        click.echo(f"No indexes in {where}.")
        return
    for manifest in manifests:
        counts = manifest.get("counts", {})
        click.echo(
            f"{manifest['name']}\t{manifest['index_type']}\t{manifest['source']['name']}\t"
            f"{counts.get('units', '?')} units"
        )
    for entry in damaged.values():  # shown, not hidden: a damaged index is never searched until built again
        click.echo(f"{entry['name']}\t{entry['index_type']}\tDAMAGED: {entry['reason']} {entry['rebuild']}")
