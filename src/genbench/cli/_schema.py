"""``genbench-cli schema``: print the JSON Schema of ``config.jsonnet``."""

from __future__ import annotations

from pathlib import Path

import click

from genbench._core.files import write_text_atomic
from genbench.cli.params import output_file_option
from genbench.runs._results import results_schema_text


@click.command("schema")
@click.option("--task-dict", is_flag=True, help="The schema of a TaskDict's config instead of a task's.")
@click.option("--results", is_flag=True, help="The schema of results files (written by run, evaluate and demo).")
@output_file_option(help="Write to this file.")
def schema(task_dict: bool, results: bool, output_file: Path | None) -> None:
    """Print the JSON Schema of a task's config.jsonnet (for editor autocompletion), or of results files.

    \b
    Examples:
      genbench-cli schema --output-file config.schema.json
      genbench-cli schema --results
    """
    if results and task_dict:
        raise click.UsageError("give --task-dict or --results, not both.")
    if results:
        text = results_schema_text()
    else:
        from genbench.config._json_schema import task_config_json_schema_text

        text = task_config_json_schema_text(task_dict)
    if output_file:
        write_text_atomic(output_file, text)
        click.echo(f"Wrote {output_file}")
    else:
        click.echo(text, nl=False)
