"""`genbench-cli data fetch / export / import / add / list`: task data carried to a machine without internet.

The Hub is unreachable here, so ``datasets.load_dataset`` (the download boundary of ``hf`` sources) is replaced by
a fake that returns a small DatasetDict for the pinned revision and refuses everything else.
"""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from genbench._core.errors import ChecksumMismatchError, DataLoadError
from genbench._registry.data_bundle import MANIFEST_NAME, export_bundle, import_bundle
from genbench._registry.task_data import HubDataset, fetch_one
from genbench.cli import cli
from genbench.config._schema import DataSourceConfig
from genbench.data import load_data_source
from genbench.data._cache import cached_entry, cached_path, list_cache_entries
from genbench.data._hub import find_hub_export, list_hub_exports
from tests.task_roots import registered_task_roots

REMOTE_BODY = b'{"input": "1+1", "target": "2"}\n{"input": "2+2", "target": "4"}\n{"input": "3+3", "target": "6"}\n'
REMOTE_SHA256 = hashlib.sha256(REMOTE_BODY).hexdigest()
REVISION = "0123456789abcdef0123456789abcdef01234567"


def write_task(root: Path, task_id: str, data_source: str) -> Path:
    task_dir = root / task_id
    (task_dir / "data").mkdir(parents=True)
    (task_dir / "data" / "train.jsonl").write_text('{"input": "0+0", "target": "0"}\n')
    (task_dir / "task.py").write_text("from genbench import Task\n\n\nclass TheTask(Task):\n    pass\n")
    (task_dir / "config.jsonnet").write_text(
        "{\n  name: 'T', description: 'd', keywords: ['k'], authors: ['a'],\n"
        f"  data_source: {data_source},\n"
        f"  has_train_set: {'true' if 'train:' in data_source else 'false'},\n  task_type: 'free_form',\n"
        "  evaluation_metrics: [{hf_id: 'exact_match', best_score: 1.0}],\n"
        "  preparation_strategies: {prompt_based_testing: {prompt_builder: {}}},\n}\n"
    )
    return task_dir


class FakeHub:
    """Stands in for ``datasets.load_dataset``: serves one dataset at one revision while ``online``."""

    def __init__(self) -> None:
        self.online = True
        self.calls: list[tuple] = []

    def __call__(self, path, name=None, revision=None, **kwargs):
        from datasets import Dataset, DatasetDict

        self.calls.append((path, name, revision))
        if not self.online:
            raise ConnectionError("Couldn't reach 'org/sentences' on the Hub (LocalEntryNotFoundError)")
        if (path, name, revision) != ("org/sentences", "en", REVISION):
            raise FileNotFoundError(f"no dataset {path} {name} {revision}")
        return DatasetDict(
            {
                "test": Dataset.from_dict({"input": ["a", "b"], "target": ["A", "B"]}),
                "train": Dataset.from_dict({"input": ["c"], "target": ["C"]}),
            }
        )


@pytest.fixture
def hub(monkeypatch) -> FakeHub:
    import datasets

    fake = FakeHub()
    monkeypatch.setattr(datasets, "load_dataset", fake)
    return fake


@pytest.fixture
def tasks(task_root, http_server) -> dict[str, object]:
    root = task_root
    url = http_server.serve("remote/test.jsonl", REMOTE_BODY)
    remote = write_task(root, "remote_task", f"{{type: 'manual', test: '{url}', train: 'data/train.jsonl'}}")
    pinned = write_task(root, "pinned_task", f"{{type: 'manual', test: '{url}', sha256: {{test: '{REMOTE_SHA256}'}}}}")
    hf = write_task(root, "hf_task", f"{{type: 'hf', hf_id: ['org/sentences', 'en'], git_commit_sha: '{REVISION}'}}")
    return {"url": url, "remote": remote, "pinned": pinned, "hf": hf}


def run(*args: str) -> object:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def remote_source(url: str) -> DataSourceConfig:
    return DataSourceConfig(type="manual", test=url, sha256={"test": REMOTE_SHA256})


HF_SOURCE = DataSourceConfig(type="hf", hf_id=["org/sentences", "en"], git_commit_sha=REVISION)


# ------------------------------------------------------------------ fetch


def test_fetch_downloads_prints_sha256_to_paste_and_saves_hub_datasets(tasks, hub, http_server):
    result = run("data", "fetch", "remote_task", "hf_task")
    assert result.exit_code == 0, result.output
    assert f"remote_task: data_source.test {tasks['url']}" in result.output
    assert f"sha256: '{REMOTE_SHA256}'" in result.output
    assert f"paste into data_source in {tasks['remote'] / 'config.jsonnet'}" in result.output
    assert f"    test: '{REMOTE_SHA256}',\n" in result.output
    train_sha = hashlib.sha256((tasks["remote"] / "data" / "train.jsonl").read_bytes()).hexdigest()
    assert f"    train: '{train_sha}',\n" in result.output
    assert "hf_task: Hugging Face dataset org/sentences (en) @ " + REVISION in result.output
    assert cached_entry(tasks["url"]).sha256 == REMOTE_SHA256
    assert find_hub_export("org/sentences", "en", REVISION) is not None
    assert hub.calls == [("org/sentences", "en", REVISION)]

    # Offline now: both load with no request and no Hub.
    http_server.stop()
    hub.online = False
    assert load_data_source(remote_source(tasks["url"]), tasks["remote"])["test"].num_rows == 3
    loaded = load_data_source(HF_SOURCE, tasks["hf"])
    assert {name: split.num_rows for name, split in loaded.items()} == {"train": 1, "test": 2}
    assert len(hub.calls) == 1


def test_fetch_of_a_pinned_task_says_it_matches(tasks, hub):
    result = run("data", "fetch", "pinned_task")
    assert result.exit_code == 0, result.output
    assert "(matches the pinned sha256)" in result.output
    assert "paste into" not in result.output


def test_fetch_of_a_task_dict_covers_every_subtask_and_local_files_stay_in_place(genbench_cache):
    result = run("data", "fetch", "negation_consistency")
    assert result.exit_code == 0, result.output
    for subtask in ("affirmative", "negated"):
        path = Path(__file__).parents[2] / "src/genbench/tasks/negation_consistency" / subtask / "data/test.jsonl"
        assert f"negation_consistency:{subtask}: data_source.test data/test.jsonl\n  in place at" in result.output
        assert f"sha256: '{hashlib.sha256(path.read_bytes()).hexdigest()}'" in result.output
    assert not (genbench_cache / "downloads").exists()


def test_fetch_a_url_and_refresh(tasks, http_server):
    assert run("data", "fetch", tasks["url"]).exit_code == 0
    assert run("data", "fetch", tasks["url"]).exit_code == 0
    assert len(http_server.requests) == 1
    result = run("data", "fetch", "--refresh", tasks["url"])
    assert result.exit_code == 0 and f"sha256: '{REMOTE_SHA256}'" in result.output
    assert len(http_server.requests) == 2


def test_fetch_reports_every_failure_and_exits_1(tasks, hub, http_server):
    http_server.faults["/remote/test.jsonl"] = "html"
    hub.online = False
    result = CliRunner().invoke(cli, ["data", "fetch", "remote_task", "hf_task"])
    assert result.exit_code == 1
    assert "Error: 2 could not be fetched" in result.output
    assert "HTML page" in result.output and "Couldn't reach 'org/sentences'" in result.output


def test_fetch_of_an_unpinned_hub_dataset_is_refused(hub):
    item = HubDataset("unpinned", "org/sentences", None, None)
    with pytest.raises(DataLoadError, match="git_commit_sha is not set"):
        fetch_one(item)
    assert hub.calls == []


# ------------------------------------------------------------------ export and import


def test_export_then_import_on_a_machine_without_internet(tasks, hub, http_server, tmp_path, monkeypatch):
    assert run("data", "fetch", "remote_task", "hf_task").exit_code == 0
    bundle = tmp_path / "bundle.tar"
    result = run("data", "export", "remote_task", "hf_task", "-o", str(bundle))
    assert result.exit_code == 0, result.output
    assert "1 file(s), 1 Hugging Face dataset(s)" in result.output

    with tarfile.open(bundle) as tar:
        manifest = json.load(tar.extractfile(MANIFEST_NAME))
    assert manifest["files"][0]["uri"] == tasks["url"] and manifest["files"][0]["sha256"] == REMOTE_SHA256
    assert manifest["hub_datasets"][0]["revision"] == REVISION
    assert manifest["hub_datasets"][0]["hf_id"] == "org/sentences"

    # The offline machine: another cache, no server, no Hub.
    monkeypatch.setenv("GENBENCH_CACHE", str(tmp_path / "offline-cache"))
    http_server.stop()
    hub.online = False
    with pytest.raises(DataLoadError, match="offline"):
        load_data_source(remote_source(tasks["url"]), tasks["remote"])

    result = run("data", "import", str(bundle))
    assert result.exit_code == 0, result.output
    assert "Imported 2 item(s)" in result.output
    assert load_data_source(remote_source(tasks["url"]), tasks["remote"])["test"][2] == {
        "input": "3+3",
        "target": "6",
    }
    assert load_data_source(HF_SOURCE, tasks["hf"])["test"]["target"] == ["A", "B"]
    assert [entry.origin for entry in list_cache_entries()] == ["import"]

    listing = run("data", "list")
    assert tasks["url"] in listing.output and f"org/sentences (en) @ {REVISION}" in listing.output


def test_export_needs_the_data_fetched_first(tasks, hub, tmp_path):
    result = CliRunner().invoke(cli, ["data", "export", "remote_task", "hf_task", "-o", str(tmp_path / "b.tar")])
    assert result.exit_code == 1
    assert "Not in the genbench cache" in result.output
    assert "genbench-cli data fetch remote_task hf_task" in result.output
    assert not (tmp_path / "b.tar").exists()


def test_import_twice_replaces_cleanly(tasks, hub, tmp_path):
    run("data", "fetch", "remote_task", "hf_task")
    bundle = tmp_path / "bundle.tar"
    export_bundle(["remote_task", "hf_task"], bundle)
    import_bundle(bundle)
    summary = import_bundle(bundle)
    assert len(summary.files) == 1 and len(summary.hub_datasets) == 1
    assert len(list_hub_exports()) == 1
    assert [p.name for p in summary.hub_datasets[0].path.parent.iterdir()] == [REVISION]


# ------------------------------------------------------------------ hostile bundles


BUNDLED_URL = "https://example.org/remote/test.jsonl"


@pytest.fixture(scope="module")
def good_bundle(tmp_path_factory) -> Path:
    """A bundle of one download and one Hub dataset, built once (the cache seeded without a server)."""
    import datasets

    from genbench.data._cache import add_to_cache

    folder = tmp_path_factory.mktemp("good-bundle")
    with pytest.MonkeyPatch.context() as patch, registered_task_roots(folder / "tasks"):
        patch.setenv("GENBENCH_CACHE", str(folder / "cache"))
        patch.setattr(datasets, "load_dataset", FakeHub())
        write_task(folder / "tasks", "remote_task", f"{{type: 'manual', test: '{BUNDLED_URL}'}}")
        write_task(
            folder / "tasks",
            "hf_task",
            f"{{type: 'hf', hf_id: ['org/sentences', 'en'], git_commit_sha: '{REVISION}'}}",
        )
        (folder / "copy.jsonl").write_bytes(REMOTE_BODY)
        add_to_cache(BUNDLED_URL, folder / "copy.jsonl")
        assert run("data", "fetch", "remote_task", "hf_task").exit_code == 0
        export_bundle(["remote_task", "hf_task"], folder / "good.tar")
    return folder / "good.tar"


def rewrite(bundle: Path, target: Path, *, edit=None, extra=None, manifest_edit=None) -> Path:
    """Copy ``bundle`` to ``target``, changing member data (``edit(name, data)``), adding members, or the manifest."""
    with tarfile.open(bundle) as source, tarfile.open(target, "w") as out:
        for info in source.getmembers():
            data = source.extractfile(info).read()
            if info.name == MANIFEST_NAME and manifest_edit is not None:
                manifest = json.loads(data)
                manifest_edit(manifest)
                data = json.dumps(manifest).encode()
            elif edit is not None:
                data = edit(info.name, data)
            info.size = len(data)
            out.addfile(info, io.BytesIO(data))
        for info, data in extra or []:
            out.addfile(info, io.BytesIO(data) if data is not None else None)
    return target


def fresh_cache(tmp_path, monkeypatch) -> Path:
    cache = tmp_path / "fresh-cache"
    monkeypatch.setenv("GENBENCH_CACHE", str(cache))
    return cache


def assert_nothing_installed(cache: Path) -> None:
    assert not cached_path(BUNDLED_URL).exists()
    assert cached_entry(BUNDLED_URL) is None
    assert list_hub_exports() == []
    leftovers = [p for p in cache.rglob("*") if p.is_file()] if cache.exists() else []
    assert leftovers == []


def member(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = link
    return info


@pytest.mark.parametrize(
    ("info", "message"),
    [
        (member("/etc/evil"), "absolute or escaping"),
        (member("downloads/../../evil"), "absolute or escaping"),
        (member("downloads/link", tarfile.SYMTYPE, "/etc/passwd"), "link or special file"),
        (member("downloads/hard", tarfile.LNKTYPE, MANIFEST_NAME), "link or special file"),
        (member("downloads/fifo", tarfile.FIFOTYPE), "link or special file"),
        (member("downloads/unlisted.jsonl"), "members not in the manifest: downloads/unlisted.jsonl"),
    ],
)
def test_unsafe_or_unlisted_members_refuse_the_bundle(good_bundle, tmp_path, monkeypatch, info, message):
    data = b'{"a": 1}\n' if info.isfile() else None
    if info.isfile():
        info.size = len(data)
    bad = rewrite(good_bundle, tmp_path / "bad.tar", extra=[(info, data)])
    cache = fresh_cache(tmp_path, monkeypatch)
    with pytest.raises(DataLoadError, match=message):
        import_bundle(bad)
    assert_nothing_installed(cache)


@pytest.mark.parametrize("name", ["downloads/../../evil", "../evil.jsonl", "/etc/evil"])
def test_escaping_members_are_refused_by_tarfiles_data_filter(good_bundle, tmp_path, monkeypatch, name):
    """The path check is PEP 706's data filter (its reason in genbench's message), not one written by hand."""
    data = b'{"a": 1}\n'
    info = member(name)
    info.size = len(data)
    bad = rewrite(good_bundle, tmp_path / "bad.tar", extra=[(info, data)])
    cache = fresh_cache(tmp_path, monkeypatch)
    with pytest.raises(DataLoadError, match=r"bad\.tar: member .* has an absolute or escaping path") as refused:
        import_bundle(bad)
    if not name.startswith("/"):  # the filter strips a leading "/" (refused here because the name changed)
        assert "outside the destination" in str(refused.value)
    assert_nothing_installed(cache)


def test_a_changed_file_fails_its_sha256_and_nothing_is_installed(good_bundle, tmp_path, monkeypatch):
    def tamper(name: str, data: bytes) -> bytes:
        return data.replace(b'"6"', b'"7"') if name.startswith("downloads/") else data

    bad = rewrite(good_bundle, tmp_path / "bad.tar", edit=tamper)
    cache = fresh_cache(tmp_path, monkeypatch)
    with pytest.raises(ChecksumMismatchError, match="the manifest says"):
        import_bundle(bad)
    assert_nothing_installed(cache)


def test_a_changed_hub_file_fails_and_the_download_is_not_installed_either(good_bundle, tmp_path, monkeypatch):
    def tamper(name: str, data: bytes) -> bytes:
        return data + b"x" if name.endswith("dataset_dict.json") else data

    bad = rewrite(good_bundle, tmp_path / "bad.tar", edit=tamper)
    cache = fresh_cache(tmp_path, monkeypatch)
    with pytest.raises(ChecksumMismatchError, match="dataset_dict.json has .* bytes, the manifest says"):
        import_bundle(bad)
    assert_nothing_installed(cache)


def test_an_html_page_with_a_matching_manifest_is_refused(good_bundle, tmp_path, monkeypatch):
    page = b"<!DOCTYPE html><html>error</html>\n"

    def swap(name: str, data: bytes) -> bytes:
        return page if name.startswith("downloads/") else data

    def match(manifest: dict) -> None:
        manifest["files"][0].update(sha256=hashlib.sha256(page).hexdigest(), size=len(page))

    bad = rewrite(good_bundle, tmp_path / "bad.tar", edit=swap, manifest_edit=match)
    cache = fresh_cache(tmp_path, monkeypatch)
    with pytest.raises(DataLoadError, match="HTML page"):
        import_bundle(bad)
    assert_nothing_installed(cache)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda m: m["hub_datasets"][0].update(revision="../../escape"), "has characters genbench cannot store"),
        (lambda m: m["hub_datasets"][0].update(hf_id="../x"), "is not of the form"),
        (lambda m: m["files"][0].update(uri="file:///etc/passwd"), "http:// or https://"),
        (lambda m: m["files"][0].update(sha256="x"), "64 lowercase hex digits"),
        (lambda m: m.update(version=99), "format version 99"),
        (lambda m: m["files"].append(dict(m["files"][0], member="downloads/missing")), "listed but missing"),
    ],
)
def test_a_bad_manifest_refuses_the_bundle(good_bundle, tmp_path, monkeypatch, edit, message):
    bad = rewrite(good_bundle, tmp_path / "bad.tar", manifest_edit=edit)
    cache = fresh_cache(tmp_path, monkeypatch)
    with pytest.raises(DataLoadError, match=message):
        import_bundle(bad)
    assert_nothing_installed(cache)


def test_not_a_bundle(tmp_path):
    junk = tmp_path / "junk.tar"
    junk.write_bytes(b"not a tar")
    with pytest.raises(DataLoadError, match="not a readable tar file"):
        import_bundle(junk)
    empty = tmp_path / "empty.tar"
    with tarfile.open(empty, "w"):
        pass
    with pytest.raises(DataLoadError, match=f"no {MANIFEST_NAME}"):
        import_bundle(empty)


# ------------------------------------------------------------------ add


def test_add_seeds_the_cache_verified_against_the_pinned_sha256(tasks, http_server, tmp_path):
    http_server.stop()
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(REMOTE_BODY)
    result = run("data", "add", tasks["url"], str(copy))
    assert result.exit_code == 0, result.output
    assert "verified against the sha256 pinned by pinned_task" in result.output
    assert load_data_source(remote_source(tasks["url"]), tasks["remote"])["test"].num_rows == 3


def test_add_refuses_a_copy_that_differs_from_the_pinned_sha256(tasks, tmp_path):
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(REMOTE_BODY + b'{"input": "4+4", "target": "8"}\n')
    result = CliRunner().invoke(cli, ["data", "add", tasks["url"], str(copy)])
    assert result.exit_code == 1
    assert f"expected {REMOTE_SHA256}" in result.output
    assert cached_entry(tasks["url"]) is None


def test_add_refuses_a_file_that_is_not_jsonl(tmp_path):
    copy = tmp_path / "page.html"
    copy.write_bytes(b"<html><body>Sign in</body></html>")
    result = CliRunner().invoke(cli, ["data", "add", "https://example.org/x.jsonl", str(copy)])
    assert result.exit_code == 1
    assert "HTML page" in result.output
    assert cached_entry("https://example.org/x.jsonl") is None


def test_add_with_an_explicit_sha256(tmp_path):
    copy = tmp_path / "x.jsonl"
    copy.write_bytes(b'{"a": 1}\n')
    digest = hashlib.sha256(b'{"a": 1}\n').hexdigest()
    ok = run("data", "add", "https://example.org/x.jsonl", str(copy), "--sha256", digest)
    assert ok.exit_code == 0 and "verified against --sha256" in ok.output
    bad = CliRunner().invoke(cli, ["data", "add", "https://example.org/y.jsonl", str(copy), "--sha256", "0" * 64])
    assert bad.exit_code == 1 and "SHA-256 mismatch" in bad.output
