"""Execute ``task_viewer.ipynb`` and render it into ``docs/task_viewer.md`` (images under ``docs/images/``).

Run from the repository root: ``python notebooks/render_docs.py`` (needs ``genbench[notebook]``).
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbconvert import MarkdownExporter

ROOT = Path(__file__).resolve().parents[1]
IMAGES = "images/task_viewer"

HEADER = """# Task viewer notebook

`notebooks/task_viewer.ipynb` shows a task of the registry: its card, statistics of its data (input and target
lengths, label distribution per split, train/test n-gram overlap), its prompts for chosen numbers of shots and seed,
and the scores of a simple baseline. Set `TASK_ID` (and `SHOTS`, `SEED`) in its first cell and run all cells:

```console
$ pip install 'genbench[notebook]'
$ jupyter lab notebooks/task_viewer.ipynb
```

In any notebook, a task shows its card by itself (`Task._repr_html_`): the last expression of a cell being
`load_task("category_membership")` is enough. That card loads no data: it says the split sizes are unknown until the
data is loaded (`task.get_datasets_raw()`), or use `genbench.display.task_card_html(task, load_data=True)`.
Progress bars use tqdm's auto frontend: widgets in Jupyter with `ipywidgets` installed (the `notebook` extra), text
elsewhere; `with genbench.display.progress_bars(False): ...` silences those of `datasets`.

The notebook is executed by the test suite (`tests/notebooks/test_task_viewer.py`, with nbclient). Below, it is
rendered as run on `category_membership` (regenerate with `python notebooks/render_docs.py`).

---

"""


def main() -> None:
    notebook = nbformat.read(ROOT / "notebooks" / "task_viewer.ipynb", as_version=4)
    NotebookClient(notebook, timeout=300, kernel_name="python3").execute()
    exporter = MarkdownExporter()
    body, resources = exporter.from_notebook_node(
        notebook, resources={"output_files_dir": IMAGES, "unique_key": "task_viewer"}
    )
    for name, data in resources["outputs"].items():
        path = ROOT / "docs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    (ROOT / "docs" / "task_viewer.md").write_text(HEADER + body, encoding="utf-8")


if __name__ == "__main__":
    main()
