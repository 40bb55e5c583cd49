"""``genbench-cli schema``: print the JSON Schema of ``config.jsonnet``."""

from __future__ import annotations

import click


@click.command("schema")
@click.option("--task-dict", is_flag=True, help="The schema of a TaskDict's config instead of a task's.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True), help="Write to this file.")
def schema(task_dict: bool, output: str | None) -> None:
    """Print the JSON Schema of a task's config.jsonnet (for editor autocompletion).

    Example: genbench-cli schema -o config.schema.json
    """
    from genbench.config.json_schema import task_config_json_schema_text
    from genbench.io import write_text_atomic

    text = task_config_json_schema_text(task_dict)
    if output:
        write_text_atomic(output, text)
        click.echo(f"Wrote {output}")
    else:
        click.echo(text, nl=False)
