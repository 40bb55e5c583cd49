"""Output files of a contamination search: per-instance JSONL, the TSV table, an HTML report, decontaminated data.

Every file is written atomically (a temporary file renamed into place), so a stopped run never leaves a partial
file behind.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from genbench._core.files import atomic_open, prepare_output_dir
from genbench._core.html_templates import package_templates, static_text
from genbench.contamination._errors import ContaminationError
from genbench.contamination._training_data import UnitSpec, iter_rows_json, load_training_dataset, safe_file_name

if TYPE_CHECKING:
    from genbench.contamination._index_backend import InstanceResult, SearchResult
    from genbench.contamination._workflow import ContaminationReport


@dataclass
class DecontaminationSummary:
    """What decontaminating one training dataset kept and removed.

    Attributes:
        dataset: The training dataset's name.
        output: The JSONL file of the kept rows.
        total: Rows of the dataset.
        removed: Rows with a unit matching some test instance.
        kept: Rows written (``kept + removed == total``).
    """

    dataset: str
    output: Path
    total: int
    removed: int
    kept: int


TSV_NAME = "contamination_report.tsv"
HTML_NAME = "report.html"
JSON_NAME = "contamination_report.json"
TOP_INSTANCES = 10


def result_file_name(result: SearchResult) -> str:
    """The JSONL file of one (index, test set) pair."""
    return f"{result.index}__{safe_file_name(result.test_set)}.jsonl"


def write_report(report: ContaminationReport, output_dir: Path) -> list[Path]:
    """Write the report's files into ``output_dir``; returns their paths."""
    prepare_output_dir(output_dir)
    written = []
    used: set[str] = set()
    files: dict[int, str] = {}
    for number, result in enumerate(report.results):
        name = result_file_name(result)
        while name in used:  # two test set names that make the same file name
            name = name[: -len(".jsonl")] + "_.jsonl"
        used.add(name)
        files[number] = name
        with atomic_open(output_dir / name) as handle:
            for instance in result.instances:
                handle.write(json.dumps(instance.to_json(), ensure_ascii=False) + "\n")
        written.append(output_dir / name)

    table = report.table()
    test_sets = list(dict.fromkeys(result.test_set for result in report.results))
    truncated = _counts(report, "truncated")
    with atomic_open(output_dir / TSV_NAME) as handle:
        header = ["index", *(_cell(name) for name in test_sets)]
        if truncated:  # only with a result cap that was reached: instances whose hits were cut, per test set
            header += [f"{_cell(name)} truncated" for name in test_sets]
        handle.write("\t".join(header) + "\n")
        for source, scores in table.items():
            values = [f"{scores[name]:.4f}" if name in scores else "" for name in test_sets]
            if truncated:
                values += [str(truncated[source][name]) if name in truncated[source] else "" for name in test_sets]
            handle.write("\t".join([_cell(source), *values]) + "\n")
    written.append(output_dir / TSV_NAME)

    summary = {
        "mode": report.mode.to_dict(),
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "scores": table,
        "files": {f"{r.source}\t{r.test_set}": files[i] for i, r in enumerate(report.results)},
        "indexes": {
            name: {k: m.get(k) for k in ("name", "index_type", "source", "units_from", "counts", "model")}
            for name, m in report.manifests.items()
        },
    }
    if truncated:
        summary["truncated"] = truncated
    unmatchable = _counts(report, "unmatchable")
    if unmatchable:  # instances scored 0 by construction (too few tokens for the mode), by source and test set
        summary["unmatchable"] = unmatchable
    with atomic_open(output_dir / JSON_NAME) as handle:
        json.dump(summary, handle, indent=2, ensure_ascii=False)
    written.append(output_dir / JSON_NAME)

    with atomic_open(output_dir / HTML_NAME) as handle:
        handle.write(render_html(report))
    written.append(output_dir / HTML_NAME)
    return written


def _counts(report: ContaminationReport, what: str) -> dict[str, dict[str, int]]:
    """A per-result count (``truncated``, ``unmatchable``) by training dataset and test set; empty when all are 0."""
    if not any(getattr(result, what) for result in report.results):
        return {}
    counts: dict[str, dict[str, int]] = {}
    for result in report.results:
        counts.setdefault(result.source, {})[result.test_set] = getattr(result, what)
    return counts


def _cell(text: str) -> str:
    return " ".join(str(text).split())  # no tab or newline inside a TSV cell


def _heat(score: float) -> str:
    level = min(max(score, 0.0), 1.0)
    other = round(255 * (1 - 0.8 * level))
    return f"background: rgb(255, {other}, {other})"


def render_html(report: ContaminationReport) -> str:
    """A self-contained HTML page (``templates/report.html.j2``, its style inlined): the score table as a heatmap and
    the top matched instances of each pair."""
    test_sets = list(dict.fromkeys(result.test_set for result in report.results))
    truncated = _counts(report, "truncated")
    rows = [
        {
            "source": source,
            "cells": [
                {"score": scores[name], "style": _heat(scores[name]), "truncated": truncated.get(source, {}).get(name)}
                if name in scores
                else None
                for name in test_sets
            ],
        }
        for source, scores in report.table().items()
    ]
    pairs = []
    for result in report.results:
        top = sorted(
            (i for i in result.instances if i.matches and i.raw_score > 0), key=lambda i: (-i.raw_score, i.number)
        )[:TOP_INSTANCES]
        if top:
            pairs.append({"test_set": result.test_set, "source": result.source, "instances": [_shown(i) for i in top]})
    return (
        package_templates("genbench.contamination")
        .get_template("report.html.j2")
        .render(
            css=static_text("genbench.contamination", "report.css"),
            mode=report.mode.describe(),
            created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
            test_sets=test_sets,
            rows=rows,
            any_truncated=bool(truncated),
            pairs=pairs,
        )
    )


def _shown(instance: InstanceResult) -> dict[str, Any]:
    """What the report shows of a matched instance: its query, its best match's span and training unit."""
    match = instance.matches[0]
    query = (
        "\n".join(f"{k}: {v}" for k, v in instance.query.items())
        if len(instance.query) > 1
        else next(iter(instance.query.values()), "")
    )
    return {
        "number": instance.number,
        "score": instance.raw_score,
        "query": query,
        "span": "\n".join(f["span_text"] for f in match.fields if f.get("span_text")),
        "unit": f"row {match.original_id}" + (f", turn {match.turn}" if match.turn >= 0 else ""),
        "unit_text": match.unit_text or "",
    }


def dataset_file_stem(index: str) -> str:
    """The dataset part of an index name.

    >>> dataset_file_stem("org__data.text"), dataset_file_stem("train-1a2b3c4d.vector-e5.v2")
    ('org__data', 'train-1a2b3c4d')
    """
    if ".vector-" in index:
        return index[: index.index(".vector-")]
    return index.removesuffix(".text")


def write_decontaminated(
    manifest: dict[str, Any], removed_rows: np.ndarray, output_dir: Path
) -> DecontaminationSummary:
    """Write the rows of an index's training dataset that are not in ``removed_rows``.

    Raises:
        ContaminationError: the dataset changed since it was indexed (its fingerprint differs).
    """
    source = manifest["source"]
    spec = UnitSpec.from_dict(manifest.get("units_from"))
    loaded = load_training_dataset(source.get("path") or source["name"], source["split"], spec)
    if loaded.fingerprint != source["fingerprint"]:
        raise ContaminationError(
            f"The training dataset {source['name']!r} changed since it was indexed (fingerprint "
            f"{loaded.fingerprint} instead of {source['fingerprint']}): index it again, then search."
        )
    total = loaded.num_rows
    remove = np.zeros(total, dtype=bool)
    remove[removed_rows.astype(np.int64)] = True
    prepare_output_dir(output_dir)
    output = output_dir / f"{dataset_file_stem(manifest['name'])}_decontaminated.jsonl"
    kept = 0
    with atomic_open(output) as handle:
        for row, line in iter_rows_json(loaded):
            if not remove[row]:
                handle.write(line + "\n")
                kept += 1
    removed = int(remove.sum())
    if kept + removed != total:  # would mean a row was lost or duplicated: never write such a file
        output.unlink(missing_ok=True)
        raise ContaminationError(f"Decontaminating {source['name']!r}: {kept} kept + {removed} removed != {total}.")
    return DecontaminationSummary(source["name"], output, total, removed, kept)
