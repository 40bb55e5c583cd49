"""genbench logs as a library: records propagate to the root logger, where pytest's caplog and a user's configuration
see them; with no configuration a warning is printed once (Python's handler of last resort), in a notebook as in
genbench-cli."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import textwrap

import pytest

import genbench  # noqa: F401
from tests.runs.fake_openai import fake_openai_server


def test_the_library_logger_adds_no_handler_and_propagates() -> None:
    library = logging.getLogger("genbench")
    assert library.handlers == [] and library.propagate


def test_caplog_sees_genbench_warnings_after_an_original_task_asked_for_a_logger(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An original-framework task calls ``get_logger(__name__)`` when imported: it used to cut propagation for good."""
    from genbench.utils.logging import get_logger

    monkeypatch.delenv("GENBENCH_VERBOSITY", raising=False)
    task_logger = get_logger("genbench.tasks.some_original_task")
    with caplog.at_level(logging.WARNING):
        task_logger.warning("from the task")
        logging.getLogger("genbench.data._cache").warning("from the library")
    assert [record.getMessage() for record in caplog.records] == ["from the task", "from the library"]
    assert logging.getLogger("genbench").propagate


def _python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k != "GENBENCH_VERBOSITY"}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120, env=clean | env
    )


def test_a_users_logging_configuration_applies_and_prints_each_record_once() -> None:
    run = _python(
        """
        import logging
        logging.basicConfig(format="ROOT %(name)s %(message)s")
        from genbench.utils.logging import get_logger
        get_logger("genbench.tasks.t").warning("task says")
        logging.getLogger("genbench.data._cache").warning("cache says")
        """
    )
    assert run.returncode == 0, run.stderr
    assert run.stderr.splitlines() == ["ROOT genbench.tasks.t task says", "ROOT genbench.data._cache cache says"]


def test_without_a_configuration_a_warning_is_printed_once_and_info_is_not() -> None:
    # as in a notebook: "few-shot examples are drawn from the 'test' split" must not go unseen
    run = _python(
        'import logging, genbench; log = logging.getLogger("genbench.data._cache"); '
        'log.warning("seen"); log.info("no")'
    )
    assert run.returncode == 0 and run.stderr == "seen\n"


@pytest.mark.parametrize("quiet", [False, True])
def test_the_cli_prints_a_logged_warning_once(tmp_path, quiet: bool) -> None:
    """The warning of a server that does not list its models (genbench.runs._openai), in a real CLI process."""
    with fake_openai_server(models=False) as server:
        args = [
            "run", "--model", f"openai:{server.url}", "--model-args", "model=fake-model", "--task",
            "arithmetic_length", "--limit", "2", "--no-cache", "-o", str(tmp_path), "--bootstrap-resamples", "50",
            *(["--quiet"] if quiet else ["--no-progress"]),
        ]  # fmt: skip
        run = subprocess.run(
            [sys.executable, "-c", "from genbench.cli import cli; cli()", *args],
            capture_output=True, text=True, timeout=120,
            env={**os.environ, "OPENAI_API_KEY": "test-key", "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"},
        )  # fmt: skip
    assert run.returncode == 0, run.stderr
    lines = [line for line in run.stderr.splitlines() if "does not list its models" in line]
    assert len(lines) == 1, run.stderr
    expected = f"openai:{server.url} does not list its models (GET {server.url}/models answered HTTP 404"
    assert lines[0].startswith(expected)
