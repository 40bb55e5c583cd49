"""The CI job that runs the backend contract suite against a real Elasticsearch 9 (it runs on GitHub, not here)."""

from __future__ import annotations

import shlex
from pathlib import Path

import yaml

from tests.contamination.conftest import BACKENDS, ES_URL_ENV

REPO_ROOT = Path(__file__).resolve().parents[2]
CI = REPO_ROOT / ".github" / "workflows" / "ci.yml"


def test_ci_runs_the_contract_suite_against_an_elasticsearch_9_service():
    job = yaml.safe_load(CI.read_text(encoding="utf-8"))["jobs"]["elasticsearch"]
    (service,) = job["services"].values()
    repository, _, tag = service["image"].partition(":")
    assert repository == "docker.elastic.co/elasticsearch/elasticsearch" and tag.split(".")[0] == "9"
    assert service["env"]["discovery.type"] == "single-node"
    assert service["env"]["xpack.security.enabled"] == "true"  # security on: the password path is exercised
    assert "9200:9200" in service["ports"] and "--health-cmd" in service["options"]
    # The tests reach the service with the password it was started with.
    assert job["env"][ES_URL_ENV] == "http://localhost:9200"
    assert job["env"]["ELASTIC_PASSWORD"] == service["env"]["ELASTIC_PASSWORD"]
    assert f"elastic:{service['env']['ELASTIC_PASSWORD']}" in service["options"]
    runs = [step["run"] for step in job["steps"] if "run" in step]
    assert runs[0] == "make install"
    words = shlex.split(runs[-1])
    assert words[words.index("pytest") :] == ["pytest", "-q", "-m", "es", "tests/contamination"]
    assert 0 < job["timeout-minutes"] <= 60


def test_the_es_marker_is_registered_and_selects_the_real_server_backend(pytestconfig):
    assert any(marker.startswith("es:") for marker in pytestconfig.getini("markers"))
    (real,) = [param for param in BACKENDS if not isinstance(param, str)]
    assert real.values == ("es",) and "es" in [mark.name for mark in real.marks]
