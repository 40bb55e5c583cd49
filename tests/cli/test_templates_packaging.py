"""The task templates ship inside the package: found through importlib.resources and inside the built wheel."""

from __future__ import annotations

import importlib.resources
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
TEMPLATE_FILES = [
    "task/cookiecutter.json",
    "task/{{cookiecutter.task_id}}/__init__{{'.py'}}",
    "task/{{cookiecutter.task_id}}/task{{'.py'}}",
    "task/{{cookiecutter.task_id}}/config.jsonnet",
    "task/{{cookiecutter.task_id}}/doc.md",
    "task/{{cookiecutter.task_id}}/data/train.jsonl",
    "task/{{cookiecutter.task_id}}/data/test.jsonl",
    "task_with_subtasks/cookiecutter.json",
    "task_with_subtasks/{{cookiecutter.task_id}}/__init__{{'.py'}}",
    "task_with_subtasks/{{cookiecutter.task_id}}/config.jsonnet",
    "task_with_subtasks/{{cookiecutter.task_id}}/doc.md",
]


def test_templates_are_package_resources():
    templates = importlib.resources.files("genbench.authoring") / "templates"
    for relative in TEMPLATE_FILES:
        resource = templates.joinpath(*relative.split("/"))
        assert resource.is_file(), relative
    spec = json.loads((templates / "task" / "cookiecutter.json").read_text())
    assert {"task_name", "task_id", "task_class_name", "authors"} <= set(spec)


def test_template_python_files_are_invisible_to_source_tools():
    """No ``*.py`` under templates/: pytest's doctest collection, ruff and mypy would choke on Jinja syntax."""
    templates = Path(str(importlib.resources.files("genbench.authoring") / "templates"))
    assert not list(templates.rglob("*.py"))


def test_plain_cookiecutter_renders_the_template_with_derived_defaults(tmp_path):
    from cookiecutter.main import cookiecutter

    templates = Path(str(importlib.resources.files("genbench.authoring") / "templates"))
    # A user config keeps cookiecutter's replay file and clone cache out of the home directory.
    config = tmp_path / "cookiecutter.yaml"
    config.write_text(f"cookiecutters_dir: {tmp_path / 'cache'}\nreplay_dir: {tmp_path / 'replay'}\n")
    out = cookiecutter(
        str(templates / "task"),
        no_input=True,
        output_dir=str(tmp_path / "out"),
        extra_context={"task_name": "Plain Cookie Task"},
        config_file=str(config),
    )
    task_dir = Path(out)
    assert task_dir.name == "plain_cookie_task"
    assert "class PlainCookieTaskTask(Task):" in (task_dir / "task.py").read_text()


@pytest.mark.skipif(
    importlib.util.find_spec("setuptools") is None,
    reason="building the wheel offline (no build isolation) needs setuptools in the environment",
)
def test_wheel_contains_the_templates_and_creates_tasks_outside_the_checkout(tmp_path):
    # Build from a copy, so the shared source tree gets no build/ or egg-info directory.
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO_ROOT / name, source / name)
    shutil.copytree(
        REPO_ROOT / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc")
    )
    dist = tmp_path / "dist"
    pip_wheel = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(dist)]
    build = subprocess.run(
        [*pip_wheel, str(source)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert build.returncode == 0, build.stdout + build.stderr
    (wheel,) = dist.glob("genbench-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for relative in TEMPLATE_FILES:
        assert f"genbench/authoring/templates/{relative}" in names, relative
    # The templates, style and script of the leaderboard and of the task cards (inlined into the pages).
    pairs = [
        ("_leaderboard", "templates"),
        ("_leaderboard", "static"),
        ("display", "templates"),
        ("display", "static"),
    ]
    for package, folder in pairs:
        shipped = {p.name for p in (REPO_ROOT / "src" / "genbench" / package / folder).iterdir() if p.is_file()}
        assert shipped and {f"genbench/{package}/{folder}/{name}" for name in shipped} <= names, (package, folder)

    # "Install" the wheel (a pure-Python wheel is a zip of the package) and create a task from it, elsewhere.
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    work = tmp_path / "work"
    work.mkdir()
    script = (
        "import genbench, genbench.authoring._scaffold as s, sys\n"
        "assert genbench.__file__.startswith(sys.argv[1]), genbench.__file__\n"
        "print(s.create_task('From Wheel', authors=['Ada'], tasks_dir='tasks'))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(site), "GENBENCH_TASKS_PATH": ""}
    run = subprocess.run(
        [sys.executable, "-c", script, str(site)], cwd=work, env=env, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert (work / "tasks" / "from_wheel" / "task.py").is_file()
    assert (work / "tasks" / "from_wheel" / "data" / "test.jsonl").is_file()


@pytest.mark.skipif(
    importlib.util.find_spec("setuptools") is None or shutil.which("git") is None,
    reason="building the wheel offline (no build isolation) needs setuptools in the environment, and git",
)
def test_wheels_and_sdists_package_only_git_tracked_tasks(tmp_path):
    # A checkout (a copy of this one, committed) with a task being written that git does not track yet.
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "MANIFEST.in"):
        shutil.copy2(REPO_ROOT / name, source / name)
    shutil.copytree(
        REPO_ROOT / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc")
    )
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "commit.gpgsign=false"]
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "checkout"]):
        subprocess.run([*git, *command], cwd=source, check=True, capture_output=True, timeout=120)
    wip = source / "src" / "genbench" / "tasks" / "wip_untracked_task"
    wip.mkdir()
    (wip / "__init__.py").write_text("")
    (wip / "config.jsonnet").write_text("{}\n")

    dist = tmp_path / "dist"
    pip_wheel = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(dist)]
    build = subprocess.run([*pip_wheel, str(source)], capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stdout + build.stderr
    (wheel,) = dist.glob("genbench-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "genbench/tasks/arithmetic_length/config.jsonnet" in names  # tracked tasks ship
    assert not [name for name in names if "wip_untracked_task" in name]
    assert "genbench_build.py" not in names  # the build hook is not part of the package

    # The sdist too (python -m build makes the wheel from it): without the untracked task, with the hook.
    code = "import sys; from setuptools import build_meta; print(build_meta.build_sdist(sys.argv[1]))"
    sdist = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "sdist")], cwd=source, capture_output=True, text=True, timeout=300
    )
    assert sdist.returncode == 0, sdist.stderr
    with tarfile.open(tmp_path / "sdist" / sdist.stdout.strip().splitlines()[-1]) as archive:
        members = archive.getnames()
    assert any(name.endswith("src/genbench_build.py") for name in members)
    assert any(name.endswith("tasks/arithmetic_length/config.jsonnet") for name in members)
    assert not [name for name in members if "wip_untracked_task" in name]
