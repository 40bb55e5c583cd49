"""``genbench-cli contamination index|search --backend elasticsearch``: the same outputs as the embedded backend."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from genbench.cli._contamination import contamination


def _run(*args: str) -> str:
    result = CliRunner().invoke(contamination, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_search_output_is_the_same_on_both_backends(osmem_url, tmp_path: Path, write_jsonl, chat):
    train = write_jsonl(
        tmp_path / "train.jsonl",
        [
            chat("What is the boiling point of water in Celsius?"),
            chat("Name three primary colours.", "Why?"),
            chat("Something else entirely."),
        ],
    )
    evaluation = write_jsonl(
        tmp_path / "eval.jsonl",
        [{"instruction": "what is the boiling point of water"}, {"instruction": "name three colours"}],
    )
    indexed = _run("index", "--dataset", str(train), "--backend", "elasticsearch", "--es_url", osmem_url)
    assert "_text (3 rows, 4 units, 17 tokens)" in indexed
    _run("index", "--dataset", str(train), "--index_dir", str(tmp_path / "idx"))
    outputs = {}
    for backend, extra in [
        ("embedded", ["--index_dir", str(tmp_path / "idx")]),
        ("elasticsearch", ["--es_url", osmem_url]),
    ]:
        out = tmp_path / backend
        printed = _run(
            "search", "--train_dataset_names", str(train), "--dataset", str(evaluation), "--field", "instruction",
            "--ngram_size", "2", "--match_threshold", "0.5", "--output_dir", str(out), "--decontaminate",
            "--backend", backend, *extra, "--no-progress",
        )  # fmt: skip
        (jsonl_file,) = [p for p in out.glob("*.jsonl") if not p.name.endswith("_decontaminated.jsonl")]
        jsonl = jsonl_file.read_text()
        decontaminated = next(out.glob("*_decontaminated.jsonl")).read_text()
        outputs[backend] = (
            printed.split("Wrote")[0],
            jsonl,
            (out / "contamination_report.tsv").read_text(),
            decontaminated,
        )
    embedded, elastic = outputs["embedded"], outputs["elasticsearch"]
    assert elastic[0] == embedded[0] and "eval.jsonl: 1.0000" in embedded[0]  # the printed scores
    assert elastic[1] == embedded[1] and '"unit_text": "what is the boiling point' in embedded[1]  # per instance
    assert elastic[2] == embedded[2]  # the TSV
    assert elastic[3] == embedded[3] and len(embedded[3].splitlines()) == 1  # the decontaminated data


def test_search_size_warns_and_options_are_checked(osmem_url, tmp_path: Path, write_jsonl):
    train = write_jsonl(tmp_path / "t.jsonl", [{"text": "same words"}] * 3)
    _run("index", "--dataset", str(train), "--text_field", "text", "--backend", "elasticsearch", "--es_url", osmem_url)
    printed = _run(
        "search", "--train_dataset_names", str(train), "--dataset", str(train), "--field", "text", "--split", "train",
        "--output_dir", str(tmp_path / "out"), "--backend", "elasticsearch", "--es_url", osmem_url,
        "--search_size", "2", "--no-progress",
    )  # fmt: skip
    assert "Warning: 3 instances reached --search-size 2 hits (flagged truncated)" in printed
    listed = _run("list", "--backend", "elasticsearch", "--es_url", osmem_url)
    assert listed.split("\t")[1:] == ["text", str(train), "3 units\n"]
    refused = CliRunner().invoke(contamination, ["index", "--dataset", str(train), "--es_url", osmem_url])
    assert refused.exit_code == 2 and "--es-url applies to --backend elasticsearch" in refused.output
    refused = CliRunner().invoke(
        contamination, ["index", "--dataset", str(train), "--backend", "elasticsearch", "--index_dir", "x"]
    )
    assert refused.exit_code == 2 and "--index-dir applies to the embedded backend" in refused.output


def test_an_incompatible_server_is_one_error_line(osmem, tmp_path: Path, write_jsonl):
    # Without the test-only node class the CLI's client meets osmem as it is: an OpenSearch 3.x.
    clone = osmem.clone()
    try:
        train = write_jsonl(tmp_path / "t.jsonl", [{"text": "x"}])
        result = CliRunner().invoke(
            contamination,
            [
                "index",
                "--dataset",
                str(train),
                "--text_field",
                "text",
                "--backend",
                "elasticsearch",
                "--es_url",
                clone.url,
            ],
        )
    finally:
        clone.close()
    assert result.exit_code == 1
    assert result.output.startswith("Error: ") and len(result.output.strip().splitlines()) == 1
    assert "runs version 3.8.0; the Elasticsearch backend needs Elasticsearch 8 or later" in result.output
