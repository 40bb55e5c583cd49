"""``genbench-cli shift``: a byte-level infini-gram index built from shipped data, and tasks measured against it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from genbench.cli import cli
from genbench.contamination.shift import open_corpus, read_shift_report
from genbench.contamination.shift._manifest import MANIFEST

pytest.importorskip("infini_gram")

TASKS = Path(__file__).resolve().parents[2] / "src" / "genbench" / "tasks"
NEGATION_TRAIN = [TASKS / "negation_consistency" / sub / "data" / "train.jsonl" for sub in ("affirmative", "negated")]


@pytest.fixture(scope="module")
def shipped_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A byte-level index of the negation task's shipped training statements."""
    index = tmp_path_factory.mktemp("shift") / "negation-train"
    files = [str(path) for path in NEGATION_TRAIN]
    result = CliRunner().invoke(
        cli, ["shift", "build", *files, "--text-field", "statement", "--index-dir", str(index), "--name", "neg"]
    )
    assert result.exit_code == 0, result.output
    assert "Built" in result.output and "400 documents" in result.output
    return index


def test_measure_writes_reports_that_match_the_index(shipped_index: Path, tmp_path: Path) -> None:
    statements = [
        json.loads(line)["statement"] for path in NEGATION_TRAIN for line in path.read_text("utf-8").splitlines()
    ]
    result = CliRunner().invoke(
        cli,
        ["shift", "measure", "--index", str(shipped_index), "-t", "negation_consistency", "-o", str(tmp_path),
         "--ngram-size", "8", "--ngram-size", "20", "--threshold", "1"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "negation_consistency:affirmative" in result.output and "20-gram hits" in result.output
    corpus = open_corpus(shipped_index)
    report = read_shift_report(tmp_path / "negation_consistency.affirmative.shift.json", corpus=corpus.identity)
    assert report["corpus"]["name"] == "neg" and report["corpus"]["tokens"] == sum(len(s.encode()) for s in statements)
    examples = [
        json.loads(line) for line in (tmp_path / report["examples_file"]).read_text(encoding="utf-8").splitlines()
    ]
    assert len(examples) == report["test_set"]["examples"] == 100
    # An example flagged at threshold 1 has every 20-byte window in the training statements.
    for example in examples:
        assert example["flagged"] == (example["ngram_hit_share"]["20"] == 1.0)
    assert report["summary"]["flagged"]["indices"] == [e["index"] for e in examples if e["flagged"]]
    # The longest span's count is the number of its occurrences in the shipped statements.
    span = max(examples, key=lambda e: e["longest_span"]["tokens"])["longest_span"]
    assert span["count"] == sum(statement.count(span["text"]) for statement in statements) > 0


def test_measure_refuses_another_corpus_name_and_a_damaged_index(shipped_index: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    wrong = runner.invoke(
        cli, ["shift", "measure", "--index", str(shipped_index), "-t", "negation_consistency", "--corpus-name", "c4"]
    )
    assert wrong.exit_code == 1 and "holds the corpus 'neg', not 'c4'" in wrong.output
    copy = tmp_path / "copy"
    copy.mkdir()
    for path in shipped_index.iterdir():
        (copy / path.name).write_bytes(path.read_bytes())
    (copy / "unigram.0").write_text("32 1\n")
    damaged = runner.invoke(cli, ["shift", "measure", "--index", str(copy), "-t", "negation_consistency"])
    assert damaged.exit_code == 1 and "unigram.0" in damaged.output and "damaged" in damaged.output


def test_register_a_downloaded_index(shipped_index: Path, tmp_path: Path) -> None:
    downloaded = tmp_path / "downloaded"
    downloaded.mkdir()
    for path in shipped_index.iterdir():
        if path.name != MANIFEST:
            (downloaded / path.name).write_bytes(path.read_bytes())
    result = CliRunner().invoke(
        cli, ["shift", "register", str(downloaded), "--name", "pile-sample", "--tokenizer", "bytes"]
    )
    assert result.exit_code == 0, result.output
    assert open_corpus(downloaded).identity.name == "pile-sample"


def test_build_names_a_missing_text_field(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli, ["shift", "build", str(NEGATION_TRAIN[0]), "--index-dir", str(tmp_path / "i"), "--name", "x"]
    )
    assert result.exit_code == 1
    assert "line 1: expected a JSON object with the field 'text' (choose the field with --text-field)" in result.output
    assert not (tmp_path / "i").exists()


def test_the_docs_show_the_real_output_of_their_offline_commands(tmp_path: Path) -> None:
    """docs/shift.md's offline example: its commands, run here, print the table the page shows."""
    runner = CliRunner()
    index = tmp_path / "indexes" / "negation-train"
    built = runner.invoke(
        cli,
        ["shift", "build", *map(str, NEGATION_TRAIN), "--text-field", "statement", "--tokenizer", "words",
         "--index-dir", str(index), "--name", "negation-train"],
    )  # fmt: skip
    assert built.exit_code == 0, built.output
    measured = runner.invoke(
        cli,
        ["shift", "measure", "--index", str(index), "-t", "negation_consistency", "-t", "arithmetic_length",
         "--ngram-size", "3", "--ngram-size", "5", "-o", str(tmp_path / "shift-reports")],
        terminal_width=200,
    )  # fmt: skip
    assert measured.exit_code == 0, measured.output
    page = (Path(__file__).resolve().parents[2] / "docs" / "shift.md").read_text(encoding="utf-8")
    shown = [line for line in page.splitlines() if line.startswith("│ ")]
    assert len(shown) == 3
    printed = [line for line in measured.output.splitlines() if line.startswith("│ ")]
    assert [line.split() for line in printed] == [line.split() for line in shown]
    checksum = open_corpus(index).identity.index_sha256[:12]
    assert f"index checksum {checksum}" in page and "400 documents, 2000 tokens (words)" in page
    (title,) = [line.strip() for line in page.splitlines() if line.strip().startswith("Shift against negation-train")]
    assert title == f"Shift against negation-train (2000 words tokens, infini-gram, index {checksum})"
    assert title in measured.output


@pytest.mark.parametrize("tokenizer", ["bytes", "words"])
@pytest.mark.parametrize("content", ["", '{"text": ""}\n{"text": ""}\n'], ids=["no-line", "empty-texts"])
def test_a_corpus_without_text_is_refused_before_the_indexer_runs(tmp_path: Path, tokenizer: str, content: str):
    # infini-gram's indexer failed on it with its own traceback (a log of zero; a Rust panic, remainder by zero)
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(content, encoding="utf-8")
    args = ["shift", "build", str(corpus), "--tokenizer", tokenizer, "--index-dir", str(tmp_path / "i"), "--name", "c"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 1
    assert (
        result.output.strip()
        == f"Error: Nothing to index in {corpus}: it holds no document with text in its 'text' field."
    )
    assert sorted(path.name for path in tmp_path.iterdir()) == ["corpus.jsonl"]  # no index, no staging left behind


def test_a_corpus_line_nested_too_deeply_is_named(tmp_path: Path):
    # a bare RecursionError before; genbench reads the texts of a `words` corpus itself
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text('{"text": "hello world"}\n{"text": ' + "[" * 100_000 + "]" * 100_000 + "}\n", encoding="utf-8")
    args = ["shift", "build", str(corpus), "--tokenizer", "words", "--index-dir", str(tmp_path / "i"), "--name", "c"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 1
    assert (
        result.output.strip()
        == f"Error: {corpus}, line 2: values nested too deeply to read (Python's JSON parser gave up)."
    )
