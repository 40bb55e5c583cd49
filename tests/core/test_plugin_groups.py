"""The plugin seam (genbench._core.plugins) as each kind uses it: model runners, CLI commands, metrics; lazy exports.

A third-party plug-in is simulated by a module written to a temporary directory on ``sys.path`` and an entry point
of its group, served by a stand-in for :func:`genbench._core.plugins._entry_points`.
"""

from __future__ import annotations

import itertools
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from genbench._core import plugins
from genbench._core.errors import MetricError, UnknownPluginError
from genbench.cli import COMMANDS, cli
from genbench.metrics import compute_metric
from genbench.metrics._builtin import BUILTIN_METRICS, METRICS, get_builtin_metric, local_metric_ids
from genbench.runs import MODEL_RUNNERS
from genbench.runs._errors import ModelSpecError
from genbench.runs._execute import run
from genbench.runs._runner_registry import load_runner
from genbench.runs._scoring import BootstrapSettings
from genbench.runs.specs import ModelSpec, parse_model_spec

_names = itertools.count()

# A fake entry point: (name, "module:attribute", is genbench's own).
EntryPoint = tuple[str, str, bool]


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[str, str, str], str]:
    """Install a plug-in: ``plugin(group, name, code)`` writes ``code`` as a new module and registers
    ``name = "<module>:plugin"`` in ``group``; returns the module's name."""
    registered: dict[str, list[EntryPoint]] = {}
    real = plugins._entry_points
    monkeypatch.setattr(plugins, "_entry_points", lambda group: real(group) + tuple(registered.get(group, ())))
    monkeypatch.syspath_prepend(str(tmp_path))

    def install(group: str, name: str, code: str, attribute: str = "plugin") -> str:
        module = f"genbench_test_plugin_{next(_names)}"
        (tmp_path / f"{module}.py").write_text(textwrap.dedent(code))
        registered.setdefault(group, []).append((name, f"{module}:{attribute}", False))
        return module

    return install


# -- the seam ----------------------------------------------------------------------------------------------------


def test_genbench_s_own_names_are_found_without_reading_entry_points(monkeypatch: pytest.MonkeyPatch) -> None:
    def unread(group: str) -> tuple[EntryPoint, ...]:
        raise AssertionError(f"entry points of {group} read")

    monkeypatch.setattr(plugins, "_entry_points", unread)
    assert "list-tasks" in COMMANDS and COMMANDS.target("run") == "genbench.cli._run:run"
    assert MODEL_RUNNERS.target("hf") == "genbench.runs._hf:HFCausalLMRunner"
    assert get_builtin_metric("exact_match") is not None


def test_a_builtin_wins_over_an_entry_point_of_genbench_of_its_name(monkeypatch: pytest.MonkeyPatch) -> None:
    group = plugins.PluginGroup("genbench.test_group", "thing", builtins={"a": "m:a", "b": "m:b"})
    points = (("b", "other:b", True), ("c", "m:c", True), ("a", "third:a", False), ("d", "third:d", False))
    monkeypatch.setattr(plugins, "_entry_points", lambda name: points if name == group.group else ())
    assert group.targets() == {"a": "m:a", "b": "m:b", "c": "m:c", "d": "third:d"}
    assert "d" in group and "e" not in group
    with pytest.raises(UnknownPluginError, match=r"Unknown thing 'dd': use one of a, b, c, d\. Did you mean 'd'\?"):
        group.target("dd")


# -- model runners ------------------------------------------------------------------------------------------------

ECHO_RUNNER = """
from genbench.runs.model_runner import ModelRunner


class plugin(ModelRunner):
    cacheable = False

    def generate(self, prompts, *, max_new_tokens, stop):
        return [self.spec.target for _ in prompts]
"""


def test_the_model_kinds_are_the_runner_groups_names() -> None:
    assert MODEL_RUNNERS.names() == ["hf", "openai", "cross-encoder", "sentence-transformers", "python"]
    assert MODEL_RUNNERS.target("python") == "genbench.runs._python:PythonRunner"


def test_an_unknown_model_kind_names_the_close_match() -> None:
    with pytest.raises(ModelSpecError, match=r"unknown model runner 'opena1'.*Did you mean 'openai'\?"):
        parse_model_spec("opena1:http://localhost:8000/v1")
    with pytest.raises(ModelSpecError, match=r"Unknown model runner 'hff': use one of hf, openai, .*'hf'"):
        load_runner(ModelSpec("hff", "gpt2"))


def test_a_third_party_model_runner_runs_from_the_cli_spec(plugin, tmp_path: Path) -> None:
    plugin("genbench.model_runners", "echo", ECHO_RUNNER)
    assert MODEL_RUNNERS.names()[-1] == "echo"
    runner = load_runner(parse_model_spec("echo:42"))
    assert type(runner).__name__ == "plugin" and runner.generate(["1 + 1"], max_new_tokens=4, stop=None) == ["42"]
    fast = BootstrapSettings(resamples=20, statistic_resamples=5)
    (task_run,) = run("echo:42", "arithmetic_length", limit=3, bootstrap=fast, output_dir=tmp_path / "out")
    assert task_run.document["model"]["kind"] == "echo"  # a valid results file (the schema takes any kind)
    assert task_run.results_path is not None and task_run.results_path.is_file()


def test_a_plug_in_cannot_take_over_a_kind_of_genbench(plugin) -> None:
    plugin("genbench.model_runners", "hf", ECHO_RUNNER)
    assert MODEL_RUNNERS.target("hf") == "genbench.runs._hf:HFCausalLMRunner"
    assert MODEL_RUNNERS.names().count("hf") == 1


def test_a_missing_optional_dependency_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` now raises ImportError
    with pytest.raises(ModelSpecError, match=r"hf: models need torch: pip install 'genbench\[hf\]'"):
        load_runner(parse_model_spec("hf:gpt2"))
    with pytest.raises(ModelSpecError, match=r"cross-encoder: models need torch: pip install 'genbench\[rerank\]'"):
        load_runner(parse_model_spec("cross-encoder:/models/x"))


def test_a_plug_in_runner_whose_module_needs_a_missing_library(plugin) -> None:
    plugin("genbench.model_runners", "needs-lib", "import genbench_no_such_library\nplugin = None\n")
    with pytest.raises(ModelSpecError, match="needs-lib: models need genbench_no_such_library: install"):
        load_runner(parse_model_spec("needs-lib:x"))


# -- CLI commands -------------------------------------------------------------------------------------------------

HELLO_COMMAND = """
import click


@click.command()
@click.option("--name", default="world")
def plugin(name):
    "Say hello (a command from another package)."
    click.echo(f"hello {name}")
"""


def test_an_unknown_command_is_clicks_no_such_command_with_the_close_match() -> None:
    result = CliRunner().invoke(cli, ["list-task"])
    assert result.exit_code == 2
    assert "No such command 'list-task'" in result.output and "'list-tasks'" in result.output
    result = CliRunner().invoke(cli, ["zzzz"])
    assert result.exit_code == 2 and "No such command 'zzzz'." in result.output and "Did you mean" not in result.output


def test_help_lists_every_command() -> None:
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0
    listed = [line.split()[0] for line in result.output.split("Commands:")[1].splitlines() if line.strip()]
    assert listed == sorted(COMMANDS.names())
    assert len(listed) == len(COMMANDS.builtins) == 19


def test_a_third_party_command_is_listed_and_runs(plugin) -> None:
    plugin("genbench.cli_commands", "hello", HELLO_COMMAND)
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0 and "hello " in result.output and "Say hello" in result.output
    result = CliRunner().invoke(cli, ["hello", "--name", "genbench"])
    assert result.exit_code == 0 and result.output == "hello genbench\n"
    result = CliRunner().invoke(cli, ["helo"])
    assert result.exit_code == 2 and "'hello'" in result.output


def test_a_command_that_cannot_load_is_listed_and_fails_when_run(plugin) -> None:
    plugin("genbench.cli_commands", "broken", "import genbench_no_such_library\n")
    plugin("genbench.cli_commands", "not-a-command", "plugin = 42\n")
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0 and "broken" in result.output and "not-a-command" in result.output
    result = CliRunner().invoke(cli, ["broken", "--any-option"])
    assert result.exit_code == 1
    assert result.output.startswith("Error: The command 'broken' (genbench_test_plugin_")
    assert "No module named 'genbench_no_such_library'" in result.output
    result = CliRunner().invoke(cli, ["not-a-command"])
    assert result.exit_code == 1 and "is not a click command" in result.output


# -- metrics ------------------------------------------------------------------------------------------------------

HALF_METRIC = """
def plugin(predictions, references, *, scale=1.0):
    return {"half_match": scale * sum(p == r for p, r in zip(predictions, references)) / (2 * len(references))}
"""


def test_the_builtin_metrics_are_the_metric_groups_own_names() -> None:
    assert sorted(METRICS.builtins) == list(BUILTIN_METRICS) == local_metric_ids()
    assert get_builtin_metric("bertscore") is None
    with pytest.raises(UnknownPluginError, match="Did you mean 'accuracy'"):
        METRICS.target("acuracy")


def test_a_third_party_metric_is_computed_locally_with_its_options(plugin) -> None:
    plugin("genbench.metrics", "half_match", HALF_METRIC)
    assert local_metric_ids()[-1] == "half_match"
    config = {"hf_id": "half_match", "compute_extra_kwargs": {"scale": 2.0}}
    assert compute_metric(config, ["a", "b"], ["a", "c"]) == {"half_match": 0.5}
    with pytest.raises(MetricError, match="accepts: scale"):
        compute_metric({"hf_id": "half_match", "compute_extra_kwargs": {"scal": 2.0}}, ["a"], ["a"])


def test_a_metric_plug_in_cannot_replace_a_builtin_and_a_broken_one_is_a_metric_error(plugin) -> None:
    plugin("genbench.metrics", "accuracy", HALF_METRIC)
    plugin("genbench.metrics", "broken_metric", "import genbench_no_such_library\n")
    assert compute_metric({"hf_id": "accuracy"}, [0, 1], [0, 0]) == {"accuracy": 0.5}
    with pytest.raises(MetricError, match="'broken_metric' .* cannot be loaded"):
        compute_metric({"hf_id": "broken_metric"}, [0], [0])


# -- lazy exports -------------------------------------------------------------------------------------------------


def test_lazy_exports_of_the_packages() -> None:
    import genbench.runs
    import genbench.task
    import genbench.tasks

    assert {"Task", "TaskConfig", "load_task", "list_tasks"} <= set(dir(genbench))
    assert genbench.tasks.Task is genbench.Task is genbench.task.Task
    assert "run" in dir(genbench.runs) and genbench.runs.run is run
    assert genbench.task.make_nshot_dataset.__module__ == "genbench._compat.task_helpers"
    for module in (genbench, genbench.runs, genbench.task, genbench.tasks):
        with pytest.raises(AttributeError, match=f"module '{module.__name__}' has no attribute 'nope'"):
            module.nope  # noqa: B018
