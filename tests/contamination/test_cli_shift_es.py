"""``genbench-cli shift measure --es-url``: an Elasticsearch contamination text index gives the numbers the embedded
index of the same training file gives, for every statistic Elasticsearch computes (docs/shift.md)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from genbench.cli import cli

TRAIN = Path(__file__).resolve().parents[2] / "src/genbench/tasks/negation_consistency/affirmative/data/train.jsonl"


def _invoke(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_shift_measure_through_es_url_equals_the_embedded_index(osmem_url: str, tmp_path: Path) -> None:
    train = tmp_path / "train.jsonl"
    train.write_bytes(TRAIN.read_bytes())
    common = ["--dataset", str(train), "--text-field", "statement", "--no-progress"]
    _invoke("contamination", "index", *common, "--backend", "elasticsearch", "--es-url", osmem_url)
    _invoke("contamination", "index", *common, "--index-dir", str(tmp_path / "embedded"))
    (embedded_index,) = [p for p in (tmp_path / "embedded").iterdir() if p.name.endswith(".text")]
    options = ["-t", "negation_consistency", "--ngram-size", "2", "--ngram-size", "3", "--threshold", "0.5", "--json"]

    through_es = json.loads(
        _invoke("shift", "measure", "--es-url", osmem_url, "--index", str(train), *options, "-o", str(tmp_path / "es"))
    )
    embedded = json.loads(
        _invoke("shift", "measure", "--index", str(embedded_index), *options, "-o", str(tmp_path / "emb"))
    )

    assert sorted(through_es) == sorted(embedded) == [
        "negation_consistency:affirmative", "negation_consistency:negated",
    ]  # fmt: skip
    for name, summary in embedded.items():
        for n in ("2", "3"):
            assert through_es[name]["ngram_hit_share"][n] == summary["ngram_hit_share"][n], (name, n)
        assert through_es[name]["flagged"] == summary["flagged"], name
    # the affirmative test set shares statements' words with its training file: the numbers are not all zero
    affirmative, negated = embedded["negation_consistency:affirmative"], embedded["negation_consistency:negated"]
    assert affirmative["ngram_hit_share"]["2"]["mean"] > 0 and affirmative["flagged"] != negated["flagged"]
    es_report = json.loads(next((tmp_path / "es").glob("negation_consistency.affirmative*.json")).read_text())
    assert es_report["corpus"]["engine"] == "elasticsearch"
