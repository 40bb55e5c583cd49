"""``genbench-cli data``: fetch task data into the cache, and carry it to machines without internet."""

from __future__ import annotations

from pathlib import Path

import click

from genbench._core.errors import ChecksumMismatchError, GenBenchError
from genbench._registry.data_bundle import export_bundle, import_bundle
from genbench._registry.directories import discover_tasks
from genbench._registry.task_data import DataFile, describe, fetch_one, task_data
from genbench.cli._output import note
from genbench.cli.params import output_file_option
from genbench.data._cache import add_to_cache, cache_dir, fetch, file_sha256, is_remote, list_cache_entries
from genbench.data._hub import list_hub_exports


@click.group("data")
def data() -> None:
    """Download task data once, and move it to machines without internet.

    \b
    Online:  genbench-cli data fetch my_task
             genbench-cli data export my_task --output-file my_task-data.tar
    Offline: genbench-cli data import my_task-data.tar
    """


@data.command("fetch")
@click.argument("targets", nargs=-1, required=True, metavar="TASK_OR_URL...")
@click.option("--refresh", is_flag=True, help="Download again even when the cache has a copy.")
def fetch_command(targets: tuple[str, ...], refresh: bool) -> None:
    """Download every data file of the tasks (or the given URLs) into the cache and print their sha256.

    Remote JSONL files are validated and cached; Hugging Face datasets are loaded at their pinned revision and
    saved by genbench, so they load offline; files inside the task directory are only checked. The sha256
    lines can be pasted into the task's config.jsonnet (data_source.sha256).

    \b
    Examples:
      genbench-cli data fetch arithmetic_length negation_consistency
      genbench-cli data fetch --refresh https://example.org/my_task/test.jsonl
    """
    failures: list[str] = []
    for target in targets:
        if is_remote(target):
            try:
                path = fetch(target, base_dir=Path.cwd(), progress=True, refresh=refresh)
            except GenBenchError as exc:
                failures.append(str(exc))
                continue
            click.echo(f"{target}\n  cached at {path}\n  sha256: '{file_sha256(path)}'")
            continue
        items = task_data([target])
        checksums: dict[tuple[str, Path], dict[str, str]] = {}
        for item in items:
            try:
                fetched = fetch_one(item, refresh=refresh, progress=True)
            except GenBenchError as exc:
                failures.append(f"{describe(item)}: {exc}")
                continue
            if isinstance(item, DataFile) and fetched.sha256 is not None:
                where = "cached at" if item.remote else "in place at"
                pinned = " (matches the pinned sha256)" if item.sha256 == fetched.sha256 else ""
                click.echo(f"{describe(item)}\n  {where} {fetched.path}\n  sha256: '{fetched.sha256}'{pinned}")
                if item.sha256 is None:
                    checksums.setdefault((item.task_id, item.task_dir), {})[item.split] = fetched.sha256
            else:
                click.echo(f"{describe(item)}\n  saved at {fetched.path}")
        if not items:
            click.echo(f"{target}: no data to fetch (its data is a local folder).")
        for (task_id, task_dir), splits in checksums.items():
            note(f"To pin the data of {task_id}, paste into data_source in {task_dir / 'config.jsonnet'}:")
            click.echo("  sha256: {\n" + "".join(f"    {s}: '{d}',\n" for s, d in splits.items()) + "  },")
    if failures:
        raise click.ClickException(f"{len(failures)} could not be fetched:\n" + "\n".join(failures))
    note(f"Cache: {cache_dir()}")


@data.command("export")
@click.argument("task_ids", nargs=-1, required=True, metavar="TASK...")
@output_file_option(required=True, help="The bundle to write.")
def export_command(task_ids: tuple[str, ...], output_file: Path) -> None:
    """Write the cached data of the tasks into one tar file (with a manifest of URLs, revisions and sha256).

    Run `genbench-cli data fetch` for the tasks first. Files inside the task directories travel with the tasks
    and are not included.

    \b
    Example:
      genbench-cli data export arithmetic_length --output-file data.tar
    """
    summary = export_bundle(list(task_ids), output_file)
    click.echo(
        f"Wrote {output_file}: {len(summary.files)} file(s), {len(summary.hub_datasets)} Hugging Face dataset(s) "
        f"({output_file.stat().st_size} bytes)."
    )


@data.command("import")
@click.argument("bundle", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def import_command(bundle: Path) -> None:
    """Install the data of a bundle written by `data export` into this machine's cache.

    Every file is checked against the manifest (size, sha256; downloads must be valid JSONL) and nothing is
    installed unless all of them pass. Links, special files and members that tarfile's data filter (PEP 706)
    refuses (absolute paths, '..' out of the folder) are refused.

    \b
    Example:
      genbench-cli data import data.tar
    """
    summary = import_bundle(bundle)
    for entry in summary.files:
        click.echo(f"{entry.uri}\n  cached at {entry.path}")
    for export in summary.hub_datasets:
        click.echo(f"Hugging Face dataset {export.hf_id} @ {export.revision}\n  saved at {export.path}")
    click.echo(f"Imported {len(summary.files) + len(summary.hub_datasets)} item(s) into {cache_dir()}.")


@data.command("add")
@click.argument("url")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--sha256", "sha256", help="Expected sha256 of FILE (default: the one a registry task pins for URL).")
def add_command(url: str, file: Path, sha256: str | None) -> None:
    """Put a local copy FILE of the data file at URL into the cache, as if it had been downloaded.

    The copy must be valid JSONL, and must match the sha256 that a registry task's config pins for URL (or
    --sha256).

    \b
    Example:
      genbench-cli data add https://example.org/my_task/test.jsonl ./test.jsonl
    """
    pinned = _pinned_sha256(url)
    if sha256 is not None and pinned and sha256.strip().lower() not in pinned:
        raise ChecksumMismatchError(
            f"--sha256 {sha256} differs from the sha256 pinned for {url} by "
            + "; ".join(f"{task}: {digest}" for digest, task in sorted(pinned.items()))
            + "."
        )
    if sha256 is None and len(pinned) > 1:
        raise ChecksumMismatchError(
            f"Tasks pin different sha256 for {url}: "
            + "; ".join(f"{task}: {digest}" for digest, task in sorted(pinned.items()))
            + ". Give the right one with --sha256."
        )
    expected = sha256 or next(iter(pinned), None)
    entry = add_to_cache(url, file, sha256=expected)
    check = f"verified against the sha256 pinned by {pinned[entry.sha256]}" if entry.sha256 in pinned else ""
    check = check or ("verified against --sha256" if sha256 else "no sha256 pinned, not verified")
    click.echo(f"{url}\n  cached at {entry.path}\n  sha256: '{entry.sha256}' ({check})")


def _pinned_sha256(url: str) -> dict[str, str]:
    """sha256 -> the task pinning it, over every registry task whose config names ``url`` (broken ones skipped)."""
    pinned: dict[str, str] = {}
    for task_id in discover_tasks():
        try:
            items = task_data([task_id])
        except GenBenchError:
            continue
        for item in items:
            if isinstance(item, DataFile) and item.uri == url and item.sha256 is not None:
                pinned.setdefault(item.sha256, item.task_id)
    return pinned


@data.command("list")
def list_command() -> None:
    """List the cached downloads and saved Hugging Face datasets.

    \b
    Example:
      genbench-cli data list
    """
    for entry in list_cache_entries():
        click.echo(f"{entry.uri}\n  {entry.path} ({entry.size} bytes, sha256 {entry.sha256}, {entry.origin})")
    for export in list_hub_exports():
        name = f" ({export.name})" if export.name else ""
        click.echo(f"Hugging Face dataset {export.hf_id}{name} @ {export.revision}\n  {export.path}")
    note(f"Cache: {cache_dir()}")
