"""``genbench-cli rerank``: rerank a task's test set with a cross-encoder (or a bi-encoder) and print the table."""

from __future__ import annotations

import click

from genbench.cli._output import dumps
from genbench.cli.params import POSITIVE_INT, json_option, kebab_case_option, model_option, task_option


@click.command("rerank")
@task_option(deprecated=("-i",), help="The reranking task's id.")
@model_option(
    default=None,
    metavar="PATH_OR_ID",
    help="A sentence-transformers CrossEncoder (local path or model id). With --bi-encoder, or when PATH is a "
    "sentence-transformers bi-encoder, a SentenceTransformer (default: the offline all-MiniLM-L6-v2).",
)
@kebab_case_option("--at-k", "at_k", type=POSITIVE_INT, default=None, help="Cut-off of MRR and NDCG.")
@click.option("--batch-size", type=POSITIVE_INT, default=64, show_default=True, help="Model batch size.")
@click.option("--bi-encoder", is_flag=True, help="Score (query, document) by cosine similarity of a bi-encoder.")
@json_option(help="Print the metrics as a JSON object instead of the Base -> Reranked lines.")
def rerank(
    task_id: str, model: str | None, at_k: int | None, batch_size: int, bi_encoder: bool, as_json: bool
) -> None:
    """Rerank the test set of a reranking task and print MAP, MRR@k and NDCG@k (Base -> Reranked).

    The numbers come from genbench.reranking's CrossEncoderRerankingEvaluator, as sentence-transformers logs them.

    Example: genbench-cli rerank -t passage_reranking_shift --bi-encoder
    """
    from genbench.reranking._task_evaluation import rerank_task

    if model is None and not bi_encoder:
        raise click.UsageError("give --model PATH_OR_ID, or --bi-encoder for the offline all-MiniLM-L6-v2")
    metrics, lines = rerank_task(task_id, model, at_k=at_k, batch_size=batch_size, bi_encoder=bi_encoder)
    if as_json:
        click.echo(dumps(metrics), nl=False)
        return
    for line in lines:
        click.echo(line)
