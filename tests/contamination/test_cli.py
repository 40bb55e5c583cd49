"""``genbench-cli contamination``: index, search, list, through click's CliRunner."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from genbench import cli as cli_module
from genbench.cli._contamination import contamination

CREATED = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00")


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def files(tmp_path: Path, write_jsonl, chat) -> dict[str, Path]:
    train = write_jsonl(
        tmp_path / "train.jsonl",
        [
            chat("What is the boiling point of water <b>in</b> Celsius?"),
            chat("Name three primary colours.", "Why is the sky blue?"),
            chat("Tell me a joke about cats & dogs."),
        ],
    )
    evaluation = write_jsonl(
        tmp_path / "eval.jsonl",
        [
            {"instruction": "What is the boiling point of water <b>in</b> Celsius?", "input": ""},
            {"instruction": "<script>alert('x')</script> why is the sky blue", "input": "Explain."},
            {"instruction": "Translate 'hello' into French.", "input": ""},
        ],
    )
    return {"train": train, "eval": evaluation, "idx": tmp_path / "idx", "out": tmp_path / "out"}


@pytest.mark.parametrize("command", [[], ["index"], ["search"], ["scan"], ["list"]])
def test_help(runner: CliRunner, command: list[str]):
    result = runner.invoke(contamination, [*command, "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage:" in result.output


def _index(runner: CliRunner, files: dict[str, Path], *extra: str) -> None:
    result = runner.invoke(
        contamination,
        ["index", "--dataset", str(files["train"]), "--index-dir", str(files["idx"]), "--no-progress", *extra],
    )
    assert result.exit_code == 0, result.output
    assert "4 units" in result.output


@pytest.mark.parametrize("spelling", ["underscore", "dash"])
def test_index_and_search_with_either_option_spelling(runner, files, spelling):
    def option(name: str) -> str:
        return f"--{name}" if spelling == "underscore" else f"--{name.replace('_', '-')}"

    result = runner.invoke(
        contamination,
        ["index", option("dataset"), str(files["train"]), option("messages_field"), "messages",
         option("query_filter"), "role:user", option("query_field"), "content", option("index_dir"), str(files["idx"]),
         "--no-progress"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    result = runner.invoke(
        contamination,
        ["search", option("train_dataset_names"), str(files["train"]), option("dataset"), str(files["eval"]),
         option("split"), "train", option("field"), "instruction", "input", option("ngram_size"), "3",
         option("match_threshold"), "0.4", option("output_dir"), str(files["out"]), option("index_dir"),
         str(files["idx"]), option("top_k"), "2", "--decontaminate", "--no-progress"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "kept 2 + removed 1 = 3 rows" in result.output

    out = files["out"]
    names = sorted(p.name for p in out.iterdir())
    assert "contamination_report.tsv" in names and "report.html" in names and "contamination_report.json" in names
    (pair_file,) = [n for n in names if n.endswith(".jsonl") and "decontaminated" not in n]
    assert pair_file.startswith("train-") and ".text__" in pair_file
    lines = [json.loads(line) for line in (out / pair_file).read_text().splitlines()]
    assert [line["score"] for line in lines] == [1.0, 0.0, 0.0]
    assert lines[0]["query"] == {"instruction": "What is the boiling point of water <b>in</b> Celsius?", "input": ""}
    assert lines[0]["raw_score"] == 0.5  # the instruction fully matched, the empty input field scores 0
    assert lines[0]["matches"][0]["original_id"] == 0 and lines[0]["matches"][0]["turn"] == 0
    assert lines[1]["matches"][0]["fields"][0]["span_text"] == "why is the sky blue"

    tsv = (out / "contamination_report.tsv").read_text().splitlines()
    assert tsv[0] == f"index\t{files['eval']}"
    assert tsv[1] == f"{files['train']}\t0.3333"

    page = (out / "report.html").read_text()
    assert "<b>in</b>" not in page and "&lt;b&gt;in&lt;/b&gt;" in page
    assert "http" not in page  # self-contained: no external assets
    decontaminated = next(out.glob("*_decontaminated.jsonl")).read_text().splitlines()
    assert len(decontaminated) == 2 and "boiling" not in "".join(decontaminated)


def test_scan_writes_what_index_and_search_write(runner, files, tmp_path):
    """`scan` (no index) gives the files of `index` + `search`, byte for byte apart from the creation time."""
    _index(runner, files)
    common = ["--dataset", str(files["eval"]), "--split", "train", "--field", "instruction", "input",
              "--ngram_size", "3", "--match_threshold", "0.4", "--top_k", "2", "--decontaminate",
              "--no-progress"]  # fmt: skip
    searched = runner.invoke(
        contamination,
        ["search", "--train_dataset_names", str(files["train"]), "--index-dir", str(files["idx"]),
         "--output_dir", str(tmp_path / "searched"), *common],
    )  # fmt: skip
    scanned = runner.invoke(
        contamination,
        ["scan", "--train-dataset-names", str(files["train"]), "--output_dir", str(tmp_path / "scanned"), *common],
    )  # fmt: skip
    assert scanned.exit_code == 0, scanned.output
    assert scanned.output == searched.output.replace(str(tmp_path / "searched"), str(tmp_path / "scanned"))
    assert "kept 2 + removed 1 = 3 rows" in scanned.output
    for path in sorted((tmp_path / "searched").iterdir()):
        ours = (tmp_path / "scanned" / path.name).read_text()
        theirs = path.read_text()
        if path.suffix == ".json":
            ours, theirs = (json.loads(text) for text in (ours, theirs))
            for report in (ours, theirs):
                report.pop("created")
                for index in report["indexes"].values():
                    index["counts"].pop("vocabulary", None)  # the index counts its vocabulary, a scan has none
        else:  # the report's creation time (to the second) is in report.html too: two runs may straddle a second
            ours, theirs = (CREATED.sub("<created>", text) for text in (ours, theirs))
        assert ours == theirs, path.name
    result = runner.invoke(contamination, ["scan", "--output_dir", str(tmp_path / "x")])
    assert result.exit_code == 2 and "--train-dataset-names" in result.output


def test_html_escapes_queries(runner, files):
    _index(runner, files)
    result = runner.invoke(
        contamination,
        ["search", "--train_dataset_names", str(files["train"]), "--dataset", str(files["eval"]), "--split", "train",
         "--field", "instruction", "--ngram_size", "2", "--output_dir", str(files["out"]), "--index-dir",
         str(files["idx"]), "--no-progress"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    page = (files["out"] / "report.html").read_text()
    assert "<script>" not in page
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; why is the sky blue" in page
    assert page.count("<table") >= 2


def test_search_defaults_to_the_registry_tasks(runner, files):
    _index(runner, files)
    result = runner.invoke(
        contamination,
        ["search", "--train_dataset_names", str(files["train"]), "--output_dir", str(files["out"]), "--index_dir",
         str(files["idx"]), "--no-progress"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    header = (files["out"] / "contamination_report.tsv").read_text().splitlines()[0].split("\t")
    assert "arithmetic_length" in header and "negation_consistency:negated" in header
    values = (files["out"] / "contamination_report.tsv").read_text().splitlines()[1].split("\t")[1:]
    assert len(values) == len(header) - 1 and all(re.fullmatch(r"\d\.\d{4}", v) for v in values)


def test_usage_errors(runner, files):
    _index(runner, files)
    base = ["search", "--train_dataset_names", str(files["train"]), "--output_dir", str(files["out"]), "--index-dir",
            str(files["idx"]), "--no-progress"]  # fmt: skip
    result = runner.invoke(
        contamination, [*base, "--ngram_size", "3", "--decontaminate", "--task", "arithmetic_length"]
    )
    assert result.exit_code == 2 and "needs --match-threshold" in result.output
    result = runner.invoke(contamination, [*base, "--dataset", str(files["eval"])])
    assert result.exit_code == 2 and "--field" in result.output
    result = runner.invoke(contamination, ["index", "--index-dir", str(files["idx"])])
    assert result.exit_code == 2 and "--dataset" in result.output


def test_library_errors_are_one_line(runner, files):
    result = runner.invoke(
        contamination, ["index", "--dataset", str(files["train"]), "--query_filter", "role:human", "--index-dir",
                        str(files["idx"]), "--no-progress"]
    )  # fmt: skip
    assert result.exit_code == 1
    assert result.output.startswith("Error: ") and "the values of 'role' are ['assistant', 'user']" in result.output
    assert "Traceback" not in result.output
    result = runner.invoke(
        contamination,
        ["search", "--train_dataset_names", "org/missing", "--task", "arithmetic_length", "--output_dir",
         str(files["out"]), "--index-dir", str(files["idx"])],
    )  # fmt: skip
    assert result.exit_code == 1 and "No text index of 'org/missing'" in result.output


def test_list(runner, files):
    result = runner.invoke(contamination, ["list", "--index-dir", str(files["idx"])])
    assert result.exit_code == 0 and "No indexes" in result.output
    _index(runner, files)
    result = runner.invoke(contamination, ["list", "--index-dir", str(files["idx"])])
    assert result.exit_code == 0 and "\ttext\t" in result.output and "4 units" in result.output


def test_runs_under_the_genbench_cli(runner, files):
    from genbench import cli as cli_module

    assert "contamination" in cli_module.COMMANDS.names()
    result = runner.invoke(cli_module.cli, ["contamination", "list", "--index-dir", str(files["idx"])])
    assert result.exit_code == 0 and "No indexes" in result.output
    result = runner.invoke(
        cli_module.cli, ["contamination", "index", "--dataset", str(files["idx"] / "nope.jsonl"), "--no-progress"]
    )
    assert result.exit_code == 1 and result.output.startswith("Error: The training data file")


def test_index_can_build_ngram_tables_ahead(runner, files):
    _index(runner, files, "--ngram_size", "3", "--ngram-size", "5")
    (folder,) = [p for p in files["idx"].iterdir() if p.suffix != ".lock"]
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["ngram_tables"] == [3, 5]
    assert sorted(p.name for p in (folder / "tables").iterdir() if p.suffix != ".lock") == ["ngram-3", "ngram-5"]
    result = runner.invoke(
        contamination,
        ["index", "--dataset", str(files["train"]), "--index-dir", str(files["idx"]), "--no-progress"],
    )
    assert "n-gram tables: 3, 5" in result.output  # the up-to-date index is kept, tables included


def test_list_shows_damaged_indexes_with_the_reason_and_the_rebuild_command(runner, files):
    # Regression: an index whose manifest was damaged used to be left out of `list` without a word.
    _index(runner, files)
    (folder,) = [p for p in files["idx"].iterdir() if p.is_dir() and not p.name.startswith(".")]

    def listed() -> str:
        result = runner.invoke(contamination, ["list", "--index-dir", str(files["idx"])])
        assert result.exit_code == 0, result.output
        (line,) = result.output.splitlines()
        assert line.startswith(f"{folder.name}\ttext\t")
        return line

    assert "DAMAGED" not in listed()
    vocab = folder / "vocab.txt"
    vocab.write_bytes(vocab.read_bytes()[:-3])  # cut short: the manifest is intact, a file is not
    line = listed()
    assert "DAMAGED" in line and "vocab.txt" in line
    # the intact manifest gives the command back with the real source
    assert f"--dataset {files['train']}" in line and line.endswith("--rebuild`.")
    (folder / "manifest.json").write_text("{ not json", encoding="utf-8")
    line = listed()
    assert "DAMAGED" in line and "manifest.json is damaged" in line
    assert "genbench-cli contamination index --dataset" in line and line.endswith("--rebuild`.")


def test_progress_bars_by_default_only_where_they_redraw(tmp_path: Path):
    # CliRunner's stderr is no terminal (as a pipe or a CI log): no tqdm redraws there unless --progress asks
    train = tmp_path / "train.jsonl"
    train.write_text(json.dumps({"text": "compute 612 + 6 please"}) + "\n", encoding="utf-8")
    common = ["scan", "--train-dataset-names", str(train), "--text-field", "text", "-t", "arithmetic_length"]
    quiet = CliRunner().invoke(contamination, [*common, "-o", str(tmp_path / "a")])
    asked = CliRunner().invoke(contamination, [*common, "-o", str(tmp_path / "b"), "--progress"])
    assert quiet.exit_code == 0 and asked.exit_code == 0, quiet.output + asked.output
    assert "Scanning" not in quiet.stderr
    assert f"Scanning {train}" in asked.stderr


def test_json_prints_the_scores_and_files_as_one_document(runner, files, tmp_path):
    out = tmp_path / "out"
    result = runner.invoke(
        contamination,
        ["scan", "--train-dataset-names", str(files["train"]), "--dataset", str(files["eval"]), "--split", "train",
         "--field", "instruction", "--ngram-size", "3", "--match-threshold", "0.4", "--decontaminate",
         "--output-dir", str(out), "--no-progress", "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    tsv = (out / "contamination_report.tsv").read_text().splitlines()
    assert tsv[1] == f"{files['train']}\t{document['scores'][str(files['train'])][str(files['eval'])]:.4f}"
    assert str(out / "contamination_report.tsv") in document["files"]
    [decontaminated] = document["decontaminated"]
    assert decontaminated["kept"] + decontaminated["removed"] == decontaminated["total"] == 3
    assert "Wrote " in result.stderr


def test_search_over_the_registry_draws_no_datasets_bars_into_a_log(runner, files, tmp_path):
    # Regression: without --task, loading every registry task drew `datasets` bars ("Formatting `train` examples")
    # on a stderr that is no terminal.
    import os
    import subprocess
    import sys

    _index(runner, files)
    env = {**os.environ, "HF_HOME": str(tmp_path / "hf"), "HF_DATASETS_CACHE": str(tmp_path / "hf_datasets"),
           "GENBENCH_CACHE": str(tmp_path / "cache")}  # fmt: skip
    command = [str(Path(sys.executable).parent / "genbench-cli"), "contamination", "search", "--train-dataset-names",
               str(files["train"]), "--index-dir", str(files["idx"]), "--output-dir", str(files["out"])]  # fmt: skip
    process = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert process.returncode == 0, process.stdout + process.stderr
    assert "Wrote" in process.stdout
    assert "%|" not in process.stderr and "examples/s" not in process.stderr, process.stderr


@pytest.mark.parametrize("where", ["before", "after"])
def test_the_global_progress_switch_is_the_one(tmp_path: Path, where: str):
    """`genbench-cli --progress` (before or after the command's name) asks for the bars a pipe does not get by
    default, and `--no-progress` turns them off: one switch for every command."""
    train = tmp_path / "train.jsonl"
    train.write_text(json.dumps({"text": "compute 612 + 6 please"}) + "\n", encoding="utf-8")
    command = ["contamination", "scan", "--train-dataset-names", str(train), "--text-field", "text"]
    command += ["-t", "arithmetic_length", "-o", str(tmp_path / "out")]
    asked = CliRunner().invoke(
        cli_module.cli, ["--progress", *command] if where == "before" else [*command, "--progress"]
    )
    assert asked.exit_code == 0, asked.output
    assert f"Scanning {train}" in asked.stderr
    off = CliRunner().invoke(cli_module.cli, [*command, "--no-progress"])
    assert off.exit_code == 0 and "Scanning" not in off.stderr
