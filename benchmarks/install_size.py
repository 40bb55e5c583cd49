"""How much disk each install of genbench takes: fresh venvs, measured the way ``du -sm`` measures them.

Every install is made in a new ``python -m venv`` (pip and setuptools included, as a user's venv has them) with
``pip install -c constraints.txt <what>`` and measured by its allocated disk blocks, in MiB (``du -sm``'s unit). Each
distribution's share is the sum of the files its RECORD lists. Measured installs:

- ``core`` (``pip install .``) and each extra (``.[es]``, ``.[openai]``, ``.[hf]``, ``.[rerank]``);
- ``floor``: the core's dependencies read from pyproject.toml without ``datasets``, ``evaluate``, ``scikit-learn``,
  ``scipy`` and ``seqeval`` (plus ``pyarrow``, which the contamination code uses directly): what a core install would
  weigh if it gave up the libraries the original GenBench API and the built-in metrics are made of;
- ``original``: the original GenBench framework (``pip install <checkout>``, the checkout named by
  ``GENBENCH_ORIG_SRC`` or ``--original``, as ``make bench`` does), the same way: the anchor for the core's size.

``python benchmarks/install_size.py`` writes ``benchmarks/results/install_size.json`` and the install table of
``docs/getting_started.md`` (between its marker comments); ``--render-only`` rewrites the table from the JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import tomllib

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import REPO_ROOT, RESULTS_DIR, write_results  # noqa: E402

PAGE = REPO_ROOT / "docs" / "getting_started.md"
BEGIN = "<!-- BEGIN GENERATED INSTALL SIZES (python benchmarks/install_size.py) -->"
END = "<!-- END GENERATED INSTALL SIZES -->"
MIB = 1024 * 1024

# The extras a user installs (test, lint, docs and dev are the project's own tooling).
EXTRAS = ("es", "openai", "hf", "rerank", "notebook", "shift")
# Left out of the "floor" install: the Hugging Face `datasets` library (the Task API returns its objects, task code
# calls its API) with `evaluate` (which requires it), and scikit-learn (the classification metrics; seqeval needs it)
# with SciPy (the correlation metrics; scikit-learn needs it).
FLOOR_LEAVES_OUT = ("datasets", "evaluate", "scikit-learn", "scipy", "seqeval")
WHAT_EACH_ADDS = {
    "core": "datasets, evaluate, scikit-learn, sacreBLEU, seqeval, gojsonnet, ...",
    "es": "the Elasticsearch client (`--backend elasticsearch`)",
    "openai": "the OpenAI client (`run --model openai:...`)",
    "hf": "torch (CPU build) and transformers (`run --model hf:...`)",
    "rerank": "torch, sentence-transformers and the offline all-MiniLM-L6-v2 (`rerank`, vector indexes)",
    "notebook": "Jupyter widgets, matplotlib and a kernel (progress bars and the task viewer notebook)",
    "shift": "infini-gram's suffix-array engine and tokenizers (`shift`: shift against a pretraining corpus)",
}

# Run by each venv's own python: the bytes of the files each installed distribution's RECORD lists.
DISTRIBUTION_SIZES = """
import importlib.metadata, json, os
sizes = {}
for dist in importlib.metadata.distributions():
    total = 0
    for file in dist.files or []:
        try:
            total += os.lstat(dist.locate_file(file)).st_size
        except OSError:
            pass
    sizes[dist.metadata["Name"].lower().replace("_", "-")] = total
print(json.dumps(sizes))
"""


def _requirement_name(requirement: str) -> str:
    return re.split(r"[\s<>=!~\[;]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def core_requirements() -> list[str]:
    """The core's dependencies as pyproject.toml declares them now."""
    return list(tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"])


def floor_requirements() -> list[str]:
    """The core's dependencies without :data:`FLOOR_LEAVES_OUT`, plus pyarrow."""
    return [*(r for r in core_requirements() if _requirement_name(r) not in FLOOR_LEAVES_OUT), "pyarrow"]


def disk_usage(root: Path) -> int:
    """Allocated bytes of everything under ``root``, each inode once and no link followed (what ``du -s`` counts)."""
    seen: set[tuple[int, int]] = set()
    total = 0
    for folder, folders, files in os.walk(root):
        for name in [*folders, *files]:
            status = os.lstat(os.path.join(folder, name))
            if (status.st_dev, status.st_ino) not in seen:
                seen.add((status.st_dev, status.st_ino))
                total += status.st_blocks * 512
    return total + os.lstat(root).st_blocks * 512


def measure(name: str, requirements: list[str], workdir: Path, cwd: Path) -> dict[str, Any]:
    """Make a fresh venv, install ``requirements`` into it and measure it."""
    venv = workdir / name
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    start = time.perf_counter()
    installed = subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "-c", str(REPO_ROOT / "constraints.txt"), *requirements],
        cwd=cwd,
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - start
    if installed.returncode != 0:
        raise RuntimeError(f"pip install {' '.join(requirements)} failed:\n{installed.stderr[-4000:]}")
    sizes = json.loads(subprocess.run([python, "-c", DISTRIBUTION_SIZES], capture_output=True, text=True).stdout)
    return {
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
        "requirements": requirements,
        "mib": round(disk_usage(venv) / MIB, 1),
        "install_seconds": round(seconds, 1),
        "distributions_mib": {
            dist: round(size / MIB, 1) for dist, size in sorted(sizes.items(), key=lambda item: -item[1])
        },
    }


def _mib(value: float) -> str:
    return f"{value:,.0f} MiB"


def _largest(install: dict[str, Any], names: list[str]) -> str:
    shares = install["distributions_mib"]
    return ", ".join(f"{name} {shares[name]:.0f}" for name in names if name in shares)


def render(result: dict[str, Any]) -> str:
    """The install table and its notes, as Markdown (what sits between the page's markers)."""
    installs = result["installs"]
    empty = result["empty_venv_mib"]
    lines = ["| Install | Adds | Size of a fresh venv |", "|---|---|---|"]
    lines.append(f"| `pip install genbench` (core) | {WHAT_EACH_ADDS['core']} | {_mib(installs['core']['mib'])} |")
    for extra in EXTRAS:
        lines.append(f"| `genbench[{extra}]` | {WHAT_EACH_ADDS[extra]} | {_mib(installs[extra]['mib'])} |")
    dev = "| `genbench[dev]` (`make install`, `make test`) | every extra, plus test, lint and docs tools | all |"
    lines.append(dev)
    core = installs["core"]
    lines += [
        "",
        f"Measured on {core['date']} with Python {result['machine']['python']} on Linux x86-64 by "
        "`python benchmarks/install_size.py` (a fresh `python -m venv` per install, `pip install -c constraints.txt "
        f"'.[extra]'`, then its disk use in MiB as `du -sm` gives it; an empty venv is {_mib(empty)}, pip and "
        "setuptools). torch is the CPU build pinned by `constraints.txt`; a CUDA build of torch adds several GB.",
        "",
        "Where the core's size goes (MiB): pyarrow "
        + _largest(core, ["pyarrow"]).removeprefix("pyarrow ")
        + " (the `datasets` library's storage, also used directly by the contamination code), what else `datasets` "
        "requires ("
        + _largest(core, ["pandas", "hf-xet", "huggingface-hub", "aiohttp", "datasets"])
        + "), NumPy "
        + _largest(core, ["numpy"]).removeprefix("numpy ")
        + ", scikit-learn and SciPy for the metrics ("
        + _largest(core, ["scipy", "scikit-learn"])
        + "), the Jsonnet engine ("
        + _largest(core, ["gojsonnet"])
        + ").",
    ]
    if "original" in installs:
        lines += [
            "",
            f"For comparison, the original GenBench framework installed the same way weighs "
            f"{_mib(installs['original']['mib'])}: it requires the same `datasets`, `evaluate` and scikit-learn.",
        ]
    if "floor" in installs:
        lines += [
            "",
            f"Without `datasets`, `evaluate`, scikit-learn, SciPy and seqeval the core's other dependencies weigh "
            f"{_mib(installs['floor']['mib'])}. genbench keeps them: `Task.get_prepared_datasets()` and task code "
            "written for the original framework work on `datasets` objects, and the built-in metrics are "
            "scikit-learn's, seqeval's and SciPy's, not copies of them.",
        ]
    return "\n".join(lines)


def write_page(result: dict[str, Any], page: Path = PAGE) -> None:
    """Put :func:`render`'s table between the page's markers."""
    text = page.read_text(encoding="utf-8")
    before, rest = text.split(BEGIN, 1)
    _, after = rest.split(END, 1)
    page.write_text(f"{before}{BEGIN}\n\n{render(result)}\n\n{END}{after}", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--installs", default=",".join(["core", *EXTRAS, "floor", "original"]))
    parser.add_argument("--original", default=os.environ.get("GENBENCH_ORIG_SRC", ""))
    parser.add_argument("--render-only", action="store_true", help="rewrite the docs table from the last results")
    parser.add_argument("--no-write", action="store_true", help="print, write neither results nor docs")
    args = parser.parse_args()
    if args.render_only:
        write_page(json.loads((RESULTS_DIR / "install_size.json").read_text(encoding="utf-8")))
        return
    wanted = args.installs.split(",")
    original = Path(args.original) if args.original else None
    if "original" in wanted and not (original and (original / "setup.py").is_file()):
        print("install_size: no checkout of GenBench/genbench_cbt (--original / GENBENCH_ORIG_SRC): skipping it")
        wanted.remove("original")
    installs: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="genbench-install-size.") as scratch:
        workdir = Path(scratch)
        subprocess.run([sys.executable, "-m", "venv", str(workdir / "empty")], check=True)
        empty = round(disk_usage(workdir / "empty") / MIB, 1)
        for name in wanted:
            if name == "core":
                requirements, cwd = ["."], REPO_ROOT
            elif name in EXTRAS:
                requirements, cwd = [f".[{name}]"], REPO_ROOT
            elif name == "floor":
                requirements, cwd = floor_requirements(), REPO_ROOT
            elif name == "original" and original is not None:
                requirements, cwd = ["."], original
            else:
                raise SystemExit(f"install_size: unknown install {name!r}")
            installs[name] = measure(name, requirements, workdir, cwd)
            print(f"{name:<10} {installs[name]['mib']:8.1f} MiB  ({installs[name]['install_seconds']} s to install)")
    if args.no_write:
        return
    # A partial run (--installs core,floor) replaces those installs' figures and keeps the others'.
    previous = RESULTS_DIR / "install_size.json"
    if set(wanted) != {"core", *EXTRAS, "floor", "original"} and previous.exists():
        installs = {**json.loads(previous.read_text(encoding="utf-8"))["installs"], **installs}
    payload = {"empty_venv_mib": empty, "core_dependencies": core_requirements(), "installs": installs}
    path = write_results("install_size", payload)
    write_page(json.loads(path.read_text(encoding="utf-8")))
    print(f"wrote {path.relative_to(REPO_ROOT)} and the table of {PAGE.relative_to(REPO_ROOT)}")


if __name__ == "__main__":
    main()
