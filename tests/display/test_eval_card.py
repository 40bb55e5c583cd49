"""GenBench evaluation cards: every shipped task renders in every format, each format well-formed and escaped."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import pytest

from genbench import load_task
from genbench._core.taxonomy import AXES
from genbench.display._eval_card import FORMATS, EvalCard, Experiment, NoTaxonomyError, eval_card, tex_escape
from tests.shipped_tasks import shipped_task_ids

NASTY = "A & B <script>alert(1)</script> 100% $x_1$ #2 {y} ~ ^ \\ \"q\" 'r'"


def _card(*values: dict[str, list[str]], title: str = "Tiny (tiny)") -> EvalCard:
    return EvalCard(title, tuple(Experiment(f"exp_{i}", v) for i, v in enumerate(values)))


FULL = {
    "motivation": ["cognitive"],
    "generalisation_type": ["structural"],
    "shift_type": ["covariate", "label"],
    "shift_source": ["generated_shifts"],
    "shift_locus": ["pretrain-train"],
}


def _balanced(text: str) -> bool:
    """Unescaped braces balance (an escaped ``\\{`` is text)."""
    depth = 0
    for match in re.finditer(r"\\\\|\\[{}]|[{}]", text):
        token = match.group()
        if token in ("{", "}"):
            depth += 1 if token == "{" else -1
            if depth < 0:
                return False
    return depth == 0


@pytest.mark.parametrize("task_id", shipped_task_ids())
@pytest.mark.parametrize("fmt", FORMATS)
def test_every_shipped_task_renders(task_id: str, fmt: str) -> None:
    task = load_task(task_id)
    text = eval_card(task).render(fmt)
    declared = task.config.taxonomy.as_lists()
    if fmt == "svg":
        root = ET.fromstring(text)
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
        texts = ["".join(node.itertext()) for node in root.iter("{http://www.w3.org/2000/svg}text")]
        marked = [t for t in texts if t == "□"]
        assert len(marked) == sum(len(v) for v in declared.values())  # one marker per declared value
    elif fmt == "latex":
        assert _balanced(text) and text.count(r"\begin{tabular}") == text.count(r"\end{tabular}") == 6
        assert text.count(r"\firstexp") == 1 + sum(len(v) for v in declared.values())
    elif fmt == "markdown":
        for axis, values in declared.items():
            for value in values:
                assert f"**{AXES[axis].label(value)} □**" in text
    else:
        HTMLParser().feed(text)
        assert text.count("□") == 1 + sum(len(v) for v in declared.values())  # the legend's and one per value


def test_the_sample_tasks_declare_their_taxonomy() -> None:
    for task_id in shipped_task_ids():
        task = load_task(task_id)
        assert task.config.taxonomy is not None, task_id
        assert all(task.config.taxonomy.values(axis) for axis in AXES), task_id


def test_the_svg_escapes_text_and_lists_every_value() -> None:
    text = _card(FULL, title=NASTY).svg()
    root = ET.fromstring(text)  # raises on unescaped markup
    all_text = " ".join("".join(n.itertext()) for n in root.iter())
    assert NASTY in all_text and "<script>" not in text
    for axis in AXES.values():
        assert all(label in all_text for label in axis.labels)


def test_the_latex_keeps_titles_on_comment_lines_and_escapes_specials() -> None:
    text = _card(FULL, title=NASTY + "\nsecond line").latex()
    assert _balanced(text)
    first = text.splitlines()[0]
    assert (
        first.startswith("% GenBench evaluation card") and "second line" in first
    )  # a newline cannot end the comment
    assert all(
        NASTY not in line for line in text.splitlines()[1:] if not line.lstrip().startswith(("%", "\\newcommand"))
    )
    assert r"\textit{Finetune train--test}" in text  # the en dash as TeX writes it
    escaped = tex_escape(NASTY)
    assert _balanced(escaped)
    assert (
        re.search(r"(?<!\\)[&%$#_~^]", escaped.replace(r"\textasciitilde{}", "").replace(r"\textasciicircum{}", ""))
        is None
    )
    assert r"\textbackslash{}" in escaped


def test_two_experiments_get_two_markers() -> None:
    other = dict(FULL, shift_locus=["finetune_train-test"])
    card = _card(FULL, other)
    assert card.marks("shift_locus", "pretrain-train") == [0] and card.marks("shift_locus", "finetune_train-test") == [
        1
    ]
    assert card.marks("shift_type", "label") == [0, 1]
    assert "**Label □△**" in card.markdown()
    assert r"\newcommand{\secondexp}{$\bigtriangleup$}" in card.latex()


def test_the_html_escapes_the_title() -> None:
    text = _card(FULL, title=NASTY).html()
    assert "<script>" not in text and "&lt;script&gt;" in text


def test_a_task_with_subtasks_marks_differing_subtasks(make_task_dict, task_root, monkeypatch) -> None:
    import json

    task_dir = make_task_dict()
    config = json.loads((task_dir / "first" / "config.jsonnet").read_text())
    config["taxonomy"]["shift_locus"] = "pretrain-test"
    (task_dir / "first" / "config.jsonnet").write_text(json.dumps(config))
    card = eval_card(load_task("tiny_dict"))
    # the dict declares none: each subtask is an experiment of its own
    assert [e.label for e in card.experiments] == ["tiny_dict:first", "tiny_dict:second"]
    assert card.marks("shift_locus", "pretrain-test") == [0] and card.marks("shift_locus", "train-test") == [1]


def test_no_taxonomy_is_an_error_that_suggests_from_keywords(make_task, task_config) -> None:
    config = task_config(keywords=["robustness", "covariate shift"])
    del config["taxonomy"]
    make_task(config=config)
    with pytest.raises(NoTaxonomyError) as error:
        eval_card(load_task("tiny"))
    assert "generalisation_type: 'robustness' (keyword 'robustness')" in str(error.value)
    assert "shift_type: 'covariate'" in str(error.value)


def test_a_subtask_shows_its_parents_card() -> None:
    card = eval_card(load_task("negation_consistency:negated"))
    assert [e.label for e in card.experiments] == ["negation_consistency:negated"]
    assert card.marks("generalisation_type", "compositional") == [0]


def test_the_notebook_card_shows_the_eval_card() -> None:
    html = load_task("arithmetic_length")._repr_html_()
    assert "GenBench evaluation card" in html and "Compositional" in html
    assert "GenBench evaluation card" in load_task("negation_consistency")._repr_html_()


def test_render_refuses_an_unknown_format() -> None:
    with pytest.raises(ValueError, match="unknown card format 'pdf'"):
        _card(FULL).render("pdf")


@pytest.mark.parametrize("task_id", shipped_task_ids())
def test_each_sample_tasks_doc_holds_its_current_card(task_id: str) -> None:
    """doc.md's card is the one eval-card prints (regenerate it after changing the config's taxonomy)."""
    task = load_task(task_id)
    table = [line for line in eval_card(task).markdown().splitlines() if line.startswith("| ")]
    from genbench._registry.directories import get_task_dir

    doc = (get_task_dir(task_id) / "doc.md").read_text(encoding="utf-8")
    assert all(line in doc for line in table), f"{task_id}/doc.md: paste `genbench-cli eval-card -t {task_id}`"
