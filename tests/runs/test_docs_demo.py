"""The demo's output in docs/getting_started.md is the demo's real output (regenerate:
python -m tests.runs.test_docs_demo), and the decontaminated file's name in docs/contamination.md is the one the code
writes."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from click.testing import CliRunner

from genbench._core.files import write_text_atomic
from genbench._core.generated_docs import replace_generated_block

REPO_ROOT = Path(__file__).resolve().parents[2]
GETTING_STARTED = REPO_ROOT / "docs" / "getting_started.md"
BEGIN = "<!-- BEGIN GENERATED DEMO OUTPUT (python -m tests.runs.test_docs_demo) -->"
END = "<!-- END GENERATED DEMO OUTPUT -->"


def demo_output() -> str:
    """What ``genbench-cli demo --output-dir demo_results`` prints on stdout (run in a temporary folder)."""
    import os
    import tempfile

    from genbench.cli import cli

    here = Path.cwd()
    with tempfile.TemporaryDirectory() as folder:
        os.chdir(folder)
        try:
            result = CliRunner().invoke(cli, ["demo", "--output-dir", "demo_results", "--no-progress"])
        finally:
            os.chdir(here)
    assert result.exit_code == 0, result.output
    return result.stdout


def demo_block(output: str) -> str:
    lines = [line.rstrip() for line in output.splitlines()]
    return "```text\n" + "\n".join(lines).strip("\n") + "\n```\n"


def test_getting_started_shows_the_demo_output(task_roots):
    task_roots.use(package_tasks="shipped")  # the tasks git tracks, none an author is writing
    text = GETTING_STARTED.read_text(encoding="utf-8")
    stale = "docs/getting_started.md shows an old demo output: run python -m tests.runs.test_docs_demo"
    assert replace_generated_block(text, BEGIN, END, demo_block(demo_output())) == text, stale


def test_getting_started_demo_block_has_every_task_and_per_entity_rows():
    text = GETTING_STARTED.read_text(encoding="utf-8")
    block = text[text.index(BEGIN) : text.index(END)]
    from tests.shipped_tasks import shipped_task_ids

    for task_id in shipped_task_ids():
        assert f"demo_results/{task_id}.json" in block, task_id
    assert "hf_seqeval__LOC__f1" in block  # the per-entity NER rows


def test_the_decontaminated_file_name_is_the_documented_one(tmp_path):
    from genbench.contamination import build_index, dataset_test_set, decontaminate, search
    from genbench.contamination._report import dataset_file_stem

    doc = (REPO_ROOT / "docs" / "contamination.md").read_text(encoding="utf-8")
    (pattern,) = set(re.findall(r"`(<dataset>[^`]*\.jsonl)`", doc))
    (example,) = re.findall(r"`train\.jsonl` → `([^`]+)`", doc)  # the documented name of a local file's output
    train = tmp_path / "train.jsonl"
    train.write_text('{"text": "the cat sat on the mat"}\n{"text": "nothing to see"}\n')
    test = tmp_path / "test.jsonl"
    test.write_text('{"input": "the cat sat on the mat"}\n')
    index_dir = tmp_path / "idx"
    build_index([str(train)], text_field="text", index_dir=index_dir)
    report = search([str(train)], test_sets=[dataset_test_set(str(test), fields=["input"])], index_dir=index_dir)
    (summary,) = decontaminate(report, tmp_path / "out")
    written = Path(summary.output).name
    (index_name,) = report.manifests
    assert written == pattern.replace("<dataset>", dataset_file_stem(index_name))
    # The documented example has the shape of the name written (the hash depends on the file's path).
    shape = re.escape(re.sub(r"-[0-9a-f]{8}_", "-HASH_", example)).replace("HASH", "[0-9a-f]{8}")
    assert re.fullmatch(shape, written), (example, written)


if __name__ == "__main__":  # pragma: no cover - a maintenance command
    import os

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    page = Path(sys.argv[1]) if len(sys.argv) > 1 else GETTING_STARTED
    new = replace_generated_block(page.read_text(encoding="utf-8"), BEGIN, END, demo_block(demo_output()))
    write_text_atomic(page, new)
    print(f"Updated {page}")
