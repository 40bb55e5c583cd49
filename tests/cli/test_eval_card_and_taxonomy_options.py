"""`genbench-cli eval-card`, create-task's taxonomy options and show-task's prompt lint."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import genbench.display._eval_card as eval_card_module
from genbench import load_task
from genbench.cli import cli
from genbench.cli._eval_card import FORMATS
from genbench.config._documents import load_task_config


def test_the_cli_formats_are_the_renderers(runner):
    assert FORMATS == eval_card_module.FORMATS


def test_eval_card_prints_markdown_by_default(runner):
    result = runner.invoke(cli, ["eval-card", "-t", "passage_reranking_shift"])
    assert result.exit_code == 0, result.output
    assert "| Generalisation type | Compositional | Structural | Task | Language | **Domain □** | Robustness |" in (
        result.output
    )


def test_eval_card_writes_svg_and_latex_files(runner, tmp_path: Path):
    svg = tmp_path / "card.svg"
    result = runner.invoke(
        cli, ["eval-card", "-t", "negation_consistency", "--format", "svg", "--output-file", str(svg)]
    )
    assert result.exit_code == 0, result.output
    assert result.output == f"Wrote {svg}\n"
    ET.parse(svg)  # valid XML
    tex = tmp_path / "card.tex"
    assert (
        runner.invoke(
            cli, ["eval-card", "-t", "arithmetic_length", "-f", "latex", "--output-file", str(tex)]
        ).exit_code
        == 0
    )
    assert tex.read_text().startswith("% GenBench evaluation card") and r"\end{document}" in tex.read_text()


def test_eval_card_errors(runner, make_task, task_config):
    bad = runner.invoke(cli, ["eval-card", "-t", "arithmetic_length", "--format", "pdf"])
    assert bad.exit_code == 2 and "'pdf' is not one of 'svg', 'html', 'latex', 'markdown'" in bad.output
    config = task_config(keywords=["compositional generalisation"])
    del config["taxonomy"]
    make_task(config=config)
    result = runner.invoke(cli, ["eval-card", "-t", "tiny"])
    assert result.exit_code == 1
    assert "Error: task 'tiny' declares no taxonomy" in result.output
    assert "generalisation_type: 'compositional' (keyword 'compositional generalisation')" in result.output


def test_eval_card_help(runner):
    result = runner.invoke(cli, ["eval-card", "--help"])
    assert result.exit_code == 0 and "genbench-cli eval-card -t arithmetic_length" in result.output


def test_create_task_writes_the_given_taxonomy(runner, task_root):
    args = ["create-task", "-n", "Add", "-a", "Ann", "--tasks-dir", str(task_root), "--motivation", "practical",
            "--generalisation-type", "robustness", "--shift-locus", "train-test",
            "--shift-locus", "pretrain-test"]  # fmt: skip
    result = runner.invoke(cli, args)
    assert result.exit_code == 0, result.output
    config = load_task_config(jsonnet_path=task_root / "add" / "config.jsonnet")
    assert config.taxonomy is not None
    assert config.taxonomy.as_lists() == {
        "motivation": ["practical"],
        "generalisation_type": ["robustness"],
        "shift_type": [],
        "shift_source": [],
        "shift_locus": ["train-test", "pretrain-test"],
    }
    assert config.primary_metric == "hf_exact_match__exact_match"
    text = (task_root / "add" / "config.jsonnet").read_text()
    assert "// shift_type (one, or a list): 'covariate' | 'label' | 'full' | 'assumed'" in text


def test_create_task_without_taxonomy_writes_it_commented_out(runner, task_root):
    result = runner.invoke(cli, ["create-task", "-n", "Add", "-a", "Ann", "--tasks-dir", str(task_root)])
    assert result.exit_code == 0, result.output
    assert load_task_config(jsonnet_path=task_root / "add" / "config.jsonnet").taxonomy is None
    assert "  // taxonomy: {" in (task_root / "add" / "config.jsonnet").read_text()


def test_create_task_refuses_an_unknown_value(runner, task_root):
    result = runner.invoke(
        cli, ["create-task", "-n", "Add", "--tasks-dir", str(task_root), "--shift-type", "covarite"]
    )
    assert (
        result.exit_code == 2 and "'covarite' is not one of 'covariate', 'label', 'full', 'assumed'" in result.output
    )


def test_create_task_with_subtasks_puts_the_taxonomy_on_the_task_dict(runner, task_root):
    args = ["create-task", "-n", "Pair", "-a", "Ann", "--tasks-dir", str(task_root), "-s", "one", "-s", "two",
            "--generalisation-type", "across_domain"]  # fmt: skip
    assert runner.invoke(cli, args).exit_code == 0
    task_dict = load_task("pair")
    assert task_dict.config.taxonomy.values("generalisation_type") == ["across_domain"]
    assert task_dict["one"].config.taxonomy is None


def test_show_task_warns_about_glued_prompts(runner, make_task, task_config):
    builder = {"instruction_zero_shot": "Add two numbers together", "instruction_few_shot": "Add two numbers together",
               "input_prefix": "Q: ", "output_prefix": "A: "}  # fmt: skip
    task_dir = make_task(
        config=task_config(preparation_strategies={"prompt_based_testing": {"prompt_builder": builder}})
    )
    (task_dir / "config.jsonnet").write_text(
        json.dumps(json.loads((task_dir / "config.jsonnet").read_text()), indent=1)
    )
    result = runner.invoke(cli, ["show-task", "-i", "tiny", "--shots", "0"])
    assert result.exit_code == 0, result.output
    warning = next(line for line in result.stderr.splitlines() if "output_prefix" in line)
    assert warning.startswith("Warning: tiny/config.jsonnet:")
    assert "glues words together" in warning
    assert "`6A:`" in warning and "Add two numbers togetherQ: 612 + 6A:·" in warning
