"""`notebooks/task_viewer.ipynb` runs top to bottom in a real Jupyter kernel (nbclient) on a shipped task."""

from __future__ import annotations

import ast
from pathlib import Path

from genbench import load_task
from genbench._core.vocabulary import PreparationStrategy
from genbench.runs import baselines

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "task_viewer.ipynb"


def test_task_viewer_runs_and_shows_card_plots_prompts_and_baseline(tmp_path: Path) -> None:
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(NOTEBOOK, as_version=4)
    parameters = next(cell for cell in notebook.cells if "parameters" in cell.metadata.get("tags", []))
    parameters.source = parameters.source.replace("SHOTS = [0, 3]", "SHOTS = [0, 2]")
    NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()

    outputs = [output for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    html = "".join(o.get("data", {}).get("text/html", "") for o in outputs)
    assert "Category Membership (Unseen Categories)" in html and "train: " in html  # the card, data loaded
    assert "2-shot prompt" in html and "0-shot, example" in html and "2-shot, example" in html
    assert sum("image/png" in o.get("data", {}) for o in outputs) == 3  # lengths, labels, n-gram overlap
    text = "".join(o.get("text", "") for o in outputs)
    assert "baseline: MajorityOptionBaseline" in text

    # the baseline's scores are those of the same baseline on the same prompts, computed here
    task = load_task("category_membership")
    prompts = task.get_prepared_datasets(PreparationStrategy.PROMPT_BASED_TESTING, shot_list=[0, 2], random_seed=42)
    pool = baselines.training_pool(task)
    for k, dataset in prompts.items():
        expected = task.evaluate_predictions(predictions=baselines.predict(task, dataset, pool), gold=dataset)
        line = next(line for line in text.splitlines() if line.startswith(f"{k} {{"))
        shown = ast.literal_eval(line.split(" ", 1)[1])
        assert shown == {key: round(value, 4) for key, value in expected.items()}
