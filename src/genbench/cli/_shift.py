"""``genbench-cli shift``: build or register a corpus index, and measure how far tasks are from that corpus."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from genbench._registry.directories import discover_tasks
from genbench.cli._output import console, display_path, dumps
from genbench.cli.params import THRESHOLD, json_option, output_dir_option, task_option

TOKENIZER = click.Choice(["bytes", "words", "hf"])
TOKENIZER_FILE = click.option(
    "--tokenizer-file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    metavar="FILE",
    help="With --tokenizer hf: the model's tokenizer.json (kept in the index).",
)


@click.group("shift")
def shift() -> None:
    """Measure how far test sets are from a pretraining corpus (n-gram hits, verbatim spans, cross-entropy).

    \b
    Example (offline, a byte-level infini-gram index of a JSONL corpus):
      genbench-cli shift build corpus.jsonl --index-dir indexes/my-corpus --name my-corpus
      genbench-cli shift measure --index indexes/my-corpus -t arithmetic_length -o shift-reports
    """


@shift.command("build")
@click.argument("corpus", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option(
    "--index-dir",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    metavar="DIR",
    help="The folder to create for the index (it must not exist).",
)
@click.option("--name", required=True, help="The corpus's name, which reports cite.")
@click.option(
    "--tokenizer",
    type=TOKENIZER,
    default="bytes",
    show_default=True,
    help="bytes: UTF-8 bytes (infini-gram's own indexer); words: genbench's contamination analyzer; hf: a "
    "model's tokenizer (--tokenizer-file).",
)
@click.option("--text-field", default="text", show_default=True, help="The field of each JSONL line to index.")
@click.option("--shards", type=click.IntRange(min=1), default=1, show_default=True, help="Index shards.")
@click.option("--cpus", type=click.IntRange(min=1), default=1, show_default=True, help="Indexer processes.")
@click.option(
    "--memory-gib",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Memory the indexer may use, in GiB.",
)
@TOKENIZER_FILE
def build(
    corpus: tuple[Path, ...],
    index_dir: Path,
    name: str,
    tokenizer: str,
    text_field: str,
    shards: int,
    cpus: int,
    memory_gib: int,
    tokenizer_file: Path | None,
) -> None:
    """Build an infini-gram index of JSONL files (one document per line) or folders of them."""
    from genbench.contamination.shift import open_corpus
    from genbench.contamination.shift._infinigram import build_infinigram_index

    folder = build_infinigram_index(
        corpus,
        index_dir,
        name=name,
        tokenizer=tokenizer,
        tokenizer_file=tokenizer_file,
        text_field=text_field,
        shards=shards,
        cpus=cpus,
        memory_gib=memory_gib,
    )
    identity = open_corpus(folder).identity
    click.echo(
        f"Built {display_path(folder)}: corpus {identity.name!r}, {identity.documents} documents, "
        f"{identity.tokens} tokens ({identity.tokenizer}), index checksum {identity.index_sha256[:12]}."
    )


@shift.command("register")
@click.argument("index_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--name", required=True, help="The corpus's name, which reports cite.")
@click.option("--tokenizer", type=TOKENIZER, required=True, help="The tokenizer the index was built with.")
@click.option(
    "--token-dtype",
    type=click.Choice(["u8", "u16", "u32"]),
    default="u8",
    show_default=True,
    help="The width of the index's tokens (u8 for byte-level indexes).",
)
@TOKENIZER_FILE
def register(index_dir: Path, name: str, tokenizer: str, token_dtype: str, tokenizer_file: Path | None) -> None:
    """Register an infini-gram index built elsewhere (e.g. downloaded), so that every use verifies it.

    Records the size and SHA-256 of each file of INDEX_DIR (this reads every file once).
    """
    from genbench.contamination.shift._infinigram import register_infinigram_index

    manifest = register_infinigram_index(
        index_dir, name=name, tokenizer=tokenizer, token_dtype=token_dtype, tokenizer_file=tokenizer_file
    )
    click.echo(
        f"Registered {display_path(index_dir)}: corpus {name!r}, {manifest['tokens']} tokens, "
        f"index checksum {manifest['manifest_sha256'][:12]}."
    )


@shift.command("measure")
@click.option(
    "--index",
    "index",
    required=True,
    metavar="DIR|NAME",
    help="The corpus index: a folder (built or registered with this command, or an embedded contamination text "
    "index), or with --es-url the dataset or index name of an Elasticsearch contamination text index.",
)
@click.option("--es-url", metavar="URL", help="Read the index from this Elasticsearch server.")
@task_option(several=True, deprecated=())
@output_dir_option(
    help="Where to write each test set's report and examples JSONL.", default=Path("shift-reports"), show_default=True
)
@click.option("--corpus-name", help="The corpus you mean: an index of another corpus is an error.")
@click.option(
    "--ngram-size",
    "ngram_sizes",
    type=click.IntRange(min=1),
    multiple=True,
    default=(8, 13),
    show_default=True,
    help="n of the n-gram statistics (repeat for several).",
)
@click.option(
    "--rarest",
    type=click.IntRange(min=0),
    default=3,
    show_default=True,
    help="How many of each example's rarest n-grams to report.",
)
@click.option(
    "--threshold",
    type=THRESHOLD,
    default=0.8,
    show_default=True,
    help="An example whose n-gram hit share reaches this is flagged as contained in the corpus.",
)
@click.option("--threshold-ngram", type=click.IntRange(min=1), help="The n of that share (default: the largest).")
@click.option("--verify", is_flag=True, help="Check the checksum of every index file, however large.")
@json_option(help="Print the reports' summaries as JSON instead of a table.")
def measure(
    index: str,
    es_url: str | None,
    task_ids: tuple[str, ...] | None,
    output_dir: Path,
    corpus_name: str | None,
    ngram_sizes: tuple[int, ...],
    rarest: int,
    threshold: float,
    threshold_ngram: int | None,
    verify: bool,
    as_json: bool,
) -> None:
    """Measure each task's test set against a corpus index; write a report and an examples JSONL per test set."""
    from genbench.contamination.shift import measure_shift, open_corpus

    if es_url is not None:
        from genbench.contamination._es import ElasticsearchBackend
        from genbench.contamination.shift._elasticsearch import ElasticsearchCorpus

        corpus: Any = ElasticsearchCorpus(ElasticsearchBackend(es_url), index)
    else:
        if not Path(index).is_dir():
            raise click.BadParameter(f"{index} is not a folder.", param_hint="'--index'")
        corpus = open_corpus(index, verify=verify)
    results = []
    for task_id in task_ids if task_ids is not None else sorted(discover_tasks()):
        results.extend(
            measure_shift(
                task_id,
                corpus=corpus,
                output_dir=output_dir,
                corpus_name=corpus_name,
                ngram_sizes=ngram_sizes,
                rarest=rarest,
                threshold=threshold,
                threshold_ngram=threshold_ngram,
            )  # fmt: skip
        )
    if as_json:
        click.echo(dumps({r.report["test_set"]["name"]: r.report["summary"] for r in results}), nl=False)
        return
    _print_table(results, corpus.identity.as_json(), sorted(set(ngram_sizes)))


def _share(block: dict[str, Any] | None) -> str:
    if not block or block["mean"] is None:
        return "-"
    low, high = block["interval"]
    return f"{block['mean']:.3f} [{low:.3f}, {high:.3f}]"


def _print_table(results: list[Any], corpus: dict[str, Any], sizes: list[int]) -> None:
    from rich.markup import escape
    from rich.table import Table

    table = Table(
        title=f"Shift against {corpus['name']} ({corpus['tokens']} {corpus['tokenizer']} tokens, "
        f"{corpus['engine']}, index {corpus['index_sha256'][:12]})"
    )
    columns = ["Test set", "n", *[f"{n}-gram hits" for n in sizes], "Longest span", "Flagged", "Unigram CE"]
    for column in columns:
        table.add_column(column, justify="left" if column == "Test set" else "right")
    for result in results:
        summary, entropy = result.report["summary"], result.report["unigram_cross_entropy"]
        shares = summary.get("ngram_hit_share", {})
        span = summary.get("longest_span_tokens")
        flagged = summary.get("flagged")
        table.add_row(
            escape(result.report["test_set"]["name"]),
            str(summary["examples"]),
            *[_share(shares.get(str(n))) for n in sizes],
            "-" if not span or span["mean"] is None else f"{span['mean']:.1f}",
            "-" if not flagged else f"{flagged['count']} ({flagged['share']:.1%})",
            "-" if not entropy or entropy["bits_per_token"] is None else f"{entropy['bits_per_token']:.2f} bits",
        )
    console().print(table)
    for result in results:
        if result.path is not None:
            click.echo(f"Wrote {display_path(result.path)}")
