"""Downloads that go wrong: cut bodies, error pages, empty, endless and dripping bodies, killed runs' leftovers."""

from __future__ import annotations

import os
import time

import pytest

from genbench._core.errors import DataLoadError, DataNotFoundError
from genbench.config._schema import DataSourceConfig
from genbench.data import cached_path, fetch, load_data_source
from genbench.data._cache import EMPTY_SHA256, cached_entry, remove_stale_downloads
from genbench.data._staging import remove_stale_temporaries, staged_file

from .test_data_cache import BODY, BODY_SHA256, cache_files


def assert_nothing_cached(genbench_cache, url: str) -> None:
    assert not cached_path(url).exists()
    assert [name for name in cache_files(genbench_cache) if not name.startswith("download-records")] == []
    assert cached_entry(url) is None


def assert_names_url_cache_and_refetch(message: str, url: str) -> None:
    assert url in message
    assert str(cached_path(url)) in message
    assert f"genbench-cli data fetch --refresh {url}" in message


# ------------------------------------------------------------------ incomplete and wrong bodies


def test_chunked_body_cut_at_a_line_boundary_is_not_cached(http_server, genbench_cache, tmp_path):
    url = http_server.serve("test.jsonl", BODY)
    http_server.faults["/test.jsonl"] = "chunked-cut"
    with pytest.raises(DataLoadError, match="closed before the last chunk") as info:
        fetch(url, base_dir=tmp_path)
    assert_names_url_cache_and_refetch(str(info.value), url)
    assert_nothing_cached(genbench_cache, url)


def test_body_without_content_length_is_kept_when_it_ends_cleanly_and_parses(http_server, tmp_path):
    url = http_server.serve("test.jsonl", BODY)
    http_server.faults["/test.jsonl"] = "no-length"
    assert fetch(url, base_dir=tmp_path).read_bytes() == BODY
    assert cached_entry(url).sha256 == BODY_SHA256


def test_body_without_content_length_cut_inside_a_line_is_not_cached(http_server, genbench_cache, tmp_path):
    url = http_server.serve("test.jsonl", BODY[:-9])
    http_server.faults["/test.jsonl"] = "no-length"
    with pytest.raises(DataLoadError, match="line 2: invalid JSON") as info:
        fetch(url, base_dir=tmp_path)
    assert_names_url_cache_and_refetch(str(info.value), url)
    assert_nothing_cached(genbench_cache, url)


def test_html_error_page_is_not_cached(http_server, genbench_cache, tmp_path):
    url = http_server.serve("test.jsonl", BODY)
    http_server.faults["/test.jsonl"] = "html"
    with pytest.raises(DataLoadError, match="HTML page") as info:
        fetch(url, base_dir=tmp_path)
    assert "text/html" in str(info.value)
    assert_names_url_cache_and_refetch(str(info.value), url)
    assert_nothing_cached(genbench_cache, url)


def test_html_body_with_a_neutral_content_type_is_not_cached(http_server, genbench_cache, tmp_path):
    url = http_server.serve("test.jsonl", b"\n  <!DOCTYPE html><html><body>Not found</body></html>")
    with pytest.raises(DataLoadError, match="HTML page"):
        fetch(url, base_dir=tmp_path)
    assert_nothing_cached(genbench_cache, url)


def test_empty_body_is_not_cached(http_server, genbench_cache, tmp_path):
    url = http_server.serve("test.jsonl", b"")
    with pytest.raises(DataLoadError, match="body is empty") as info:
        fetch(url, base_dir=tmp_path)
    assert_names_url_cache_and_refetch(str(info.value), url)
    assert_nothing_cached(genbench_cache, url)


def test_empty_body_is_kept_for_a_split_declared_empty(http_server, tmp_path):
    url = http_server.serve("test.jsonl", b"")
    assert fetch(url, base_dir=tmp_path, sha256=EMPTY_SHA256).read_bytes() == b""


# ------------------------------------------------------------------ limits


def test_endless_body_stops_at_the_size_limit(http_server, genbench_cache, tmp_path, monkeypatch):
    monkeypatch.setenv("GENBENCH_MAX_DOWNLOAD_BYTES", "100000")
    url = http_server.serve("test.jsonl", BODY)
    http_server.faults["/test.jsonl"] = "endless"
    with pytest.raises(DataLoadError, match=r"passed the limit of 100000 bytes \(\$GENBENCH_MAX_DOWNLOAD_BYTES\)"):
        fetch(url, base_dir=tmp_path)
    assert_nothing_cached(genbench_cache, url)


def test_announced_size_over_the_limit_is_refused_before_the_body(http_server, genbench_cache, tmp_path, monkeypatch):
    monkeypatch.setenv("GENBENCH_MAX_DOWNLOAD_BYTES", "10")
    url = http_server.serve("test.jsonl", BODY)
    with pytest.raises(DataLoadError, match=f"announces {len(BODY)} bytes, more than the limit of 10 bytes"):
        fetch(url, base_dir=tmp_path)
    assert_nothing_cached(genbench_cache, url)


def test_slow_drip_stops_at_the_time_limit(http_server, genbench_cache, tmp_path, monkeypatch):
    # Without the limit this download would succeed after ~3 s (the drip server sends the whole BODY).
    monkeypatch.setenv("GENBENCH_DOWNLOAD_TIMEOUT", "0.5")
    url = http_server.serve("test.jsonl", BODY)
    http_server.faults["/test.jsonl"] = "drip"
    with pytest.raises(DataLoadError, match=r"stopped after 0.5 s \(\$GENBENCH_DOWNLOAD_TIMEOUT\)") as info:
        fetch(url, base_dir=tmp_path)
    assert_names_url_cache_and_refetch(str(info.value), url)
    assert_nothing_cached(genbench_cache, url)


def test_headers_dripping_stop_at_the_time_limit(http_server, genbench_cache, tmp_path, monkeypatch):
    # Each header byte comes well within the per-read wait, so only the total deadline can stop this download;
    # without it the download would succeed after ~3 s (the server then sends the whole BODY).
    monkeypatch.setenv("GENBENCH_DOWNLOAD_TIMEOUT", "0.5")
    url = http_server.serve("test.jsonl", BODY)
    http_server.faults["/test.jsonl"] = "header-drip"
    with pytest.raises(
        DataLoadError, match=r"stopped after 0.5 s \(\$GENBENCH_DOWNLOAD_TIMEOUT\) before the response headers were"
    ) as info:
        fetch(url, base_dir=tmp_path)
    assert_names_url_cache_and_refetch(str(info.value), url)
    assert_nothing_cached(genbench_cache, url)


def test_a_header_drip_within_the_time_limit_downloads(http_server, tmp_path, monkeypatch):
    monkeypatch.setenv("GENBENCH_DOWNLOAD_TIMEOUT", "60")
    url = http_server.serve("test.jsonl", BODY)
    http_server.faults["/test.jsonl"] = "header-drip"
    assert fetch(url, base_dir=tmp_path).read_bytes() == BODY


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("GENBENCH_MAX_DOWNLOAD_BYTES", "lots"),
        ("GENBENCH_MAX_DOWNLOAD_BYTES", "-1"),
        ("GENBENCH_DOWNLOAD_TIMEOUT", "0"),
    ],
)
def test_bad_limit_variables_are_named(http_server, tmp_path, monkeypatch, variable, value):
    monkeypatch.setenv(variable, value)
    url = http_server.serve("test.jsonl", BODY)
    with pytest.raises(DataLoadError, match=rf"\${variable} must be a positive"):
        fetch(url, base_dir=tmp_path)
    assert http_server.requests == []


# ------------------------------------------------------------------ recovery and reuse


@pytest.mark.parametrize("fault", ["html", "chunked-cut", "truncate", "500"])
def test_server_recovering_after_a_failure_gets_the_good_body_cached(http_server, tmp_path, fault):
    url = http_server.serve("test.jsonl", BODY)
    http_server.faults["/test.jsonl"] = f"{fault}-once"
    with pytest.raises(DataLoadError):
        fetch(url, base_dir=tmp_path)
    assert fetch(url, base_dir=tmp_path).read_bytes() == BODY
    assert fetch(url, base_dir=tmp_path).read_bytes() == BODY
    assert len(http_server.requests) == 2, "the good body is cached; the failed one was never reused"


def test_a_cached_file_without_its_record_is_not_reused(http_server, genbench_cache, tmp_path):
    url = http_server.serve("test.jsonl", BODY)
    partial = cached_path(url)
    partial.parent.mkdir(parents=True)
    partial.write_bytes(BODY.split(b"\n")[0] + b"\n")  # e.g. left by an older genbench that cached a cut body
    assert fetch(url, base_dir=tmp_path).read_bytes() == BODY
    assert http_server.requests == ["/test.jsonl"]


def test_a_cached_file_without_its_record_offline_names_the_file(http_server, genbench_cache, tmp_path):
    url = http_server.serve("test.jsonl", BODY)
    partial = cached_path(url)
    partial.parent.mkdir(parents=True)
    partial.write_bytes(b'{"a": 1}\n')
    http_server.stop()
    with pytest.raises(DataLoadError, match="has no record of a complete download") as info:
        fetch(url, base_dir=tmp_path)
    assert str(partial) in str(info.value) and "offline" in str(info.value)
    assert f"genbench-cli data add {url} FILE" in str(info.value)


def test_refresh_downloads_again_and_keeps_the_old_copy_on_failure(http_server, tmp_path):
    url = http_server.serve("test.jsonl", BODY)
    fetch(url, base_dir=tmp_path)
    http_server.faults["/test.jsonl"] = "html-once"
    with pytest.raises(DataLoadError, match="the cache keeps its previous copy"):
        fetch(url, base_dir=tmp_path, refresh=True)
    assert fetch(url, base_dir=tmp_path).read_bytes() == BODY
    http_server.files["/test.jsonl"] = b'{"new": 1}\n'
    assert fetch(url, base_dir=tmp_path, refresh=True).read_bytes() == b'{"new": 1}\n'
    assert len(http_server.requests) == 3


# ------------------------------------------------------------------ leftovers of killed runs


def test_stale_temporaries_are_removed_on_the_next_download(http_server, genbench_cache, tmp_path):
    downloads = genbench_cache / "downloads"
    downloads.mkdir(parents=True)
    killed = downloads / ".1234-test.jsonl.k1ll3d.tmp"
    killed.write_bytes(b'{"partial"')
    fresh = downloads / ".1234-test.jsonl.fr3sh.tmp"
    fresh.write_bytes(b'{"partial"')
    old = time.time() - 3600
    os.utime(killed, (old, old))

    url = http_server.serve("test.jsonl", BODY)
    fetch(url, base_dir=tmp_path)
    assert not killed.exists(), "a killed run's temporary file is removed"
    assert fresh.exists(), "a recent temporary file may belong to a run in progress"


def test_a_locked_temporary_of_a_concurrent_run_is_kept(tmp_path):
    target = tmp_path / "data.jsonl"
    with staged_file(target) as (out, staged):
        out.write(b'{"a": 1}\n')
        old = time.time() - 3600
        os.utime(staged, (old, old))  # a slow download: untouched for an hour, but its process is alive
        assert remove_stale_temporaries(tmp_path) == []
        assert staged.exists()
    assert target.read_bytes() == b'{"a": 1}\n'
    assert not staged.exists()


def test_stale_sweep_runs_once_per_cache(genbench_cache):
    downloads = genbench_cache / "downloads"
    downloads.mkdir(parents=True)
    first = downloads / ".a.x.tmp"
    first.write_bytes(b"")
    os.utime(first, (0, 0))
    assert remove_stale_downloads() == [first]
    second = downloads / ".b.x.tmp"
    second.write_bytes(b"")
    os.utime(second, (0, 0))
    assert remove_stale_downloads() == []


# ------------------------------------------------------------------ a missing local file (issue 13, item 14)


def test_missing_local_data_file_names_field_path_and_fix(tmp_path):
    source = DataSourceConfig(type="manual", test="data/test.jsonl")
    with pytest.raises(DataNotFoundError) as info:
        load_data_source(source, tmp_path)
    message = str(info.value)
    path = str((tmp_path / "data" / "test.jsonl").resolve())
    assert message.startswith(f"data_source.test: data file not found: {path} (from 'data/test.jsonl').")
    assert "correct data_source.test in config.jsonnet" in message and str(tmp_path.resolve()) in message
    assert "Errno" not in message and "None" not in message
    assert info.value.filename == path and isinstance(info.value, FileNotFoundError)


def test_a_killed_download_leaves_a_temporary_the_next_run_removes(http_server, genbench_cache, tmp_path):
    """A real process killed mid-download: its file is kept while it lives, and removed after it died."""
    import signal
    import subprocess
    import sys

    url = http_server.serve("slow.jsonl", BODY)
    http_server.faults["/slow.jsonl"] = "drip"
    child = subprocess.Popen(
        [sys.executable, "-c", f"from genbench.data import fetch; fetch({url!r}, base_dir='.')"],
        env={**os.environ, "GENBENCH_CACHE": str(genbench_cache)},
    )
    try:
        downloads = genbench_cache / "downloads"
        deadline = time.monotonic() + 60
        # Written to (the server drips the body): the child has passed mkstemp and holds the file's lock.
        while (
            not [path for path in downloads.glob(".*.tmp") if path.stat().st_size]
            and time.monotonic() < deadline
            and child.poll() is None
        ):
            time.sleep(0.05)
        (partial,) = list(downloads.glob(".*.tmp"))
        old = time.time() - 3600
        os.utime(partial, (old, old))
        assert remove_stale_temporaries(downloads) == [], "the child is alive and holds the lock"
        assert partial.exists()
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    assert partial.exists(), "a killed run leaves its temporary file behind"
    os.utime(partial, (old, old))

    http_server.faults.clear()
    assert fetch(url, base_dir=tmp_path).read_bytes() == BODY
    assert not partial.exists(), "the next run removed the leftover"
    assert cache_files(genbench_cache) == sorted(
        [f"download-records/{cached_path(url).name}.json", f"downloads/{cached_path(url).name}"]
    )


def test_a_cached_file_that_fails_to_load_says_how_to_refetch(http_server, tmp_path):
    url = http_server.serve("test.jsonl", b'{"a": 1}\n')
    source = DataSourceConfig(type="manual", test=url)
    assert load_data_source(source, tmp_path)["test"].num_rows == 1
    cached_path(url).write_bytes(b'{"a": 1,\n')  # damaged on disk, same size
    with pytest.raises(DataLoadError, match="invalid JSON") as info:
        load_data_source(source, tmp_path)
    assert f"is the cached copy of {url}: run `genbench-cli data fetch --refresh {url}`" in str(info.value)


def test_a_cached_file_whose_url_ends_in_tmp_is_not_taken_for_a_leftover(http_server, genbench_cache, tmp_path):
    url = http_server.serve("export.tmp", BODY)
    path = fetch(url, base_dir=tmp_path)
    old = time.time() - 3600
    os.utime(path, (old, old))
    assert remove_stale_temporaries(genbench_cache / "downloads") == []
    assert fetch(url, base_dir=tmp_path).read_bytes() == BODY
    assert len(http_server.requests) == 1


def test_staging_folders_of_killed_runs_are_removed_and_live_ones_kept(tmp_path):
    from genbench.data._staging import staged_directory

    dead = tmp_path / "org--data" / "default" / ".abc123.dead0001.tmp"
    (dead / "sub").mkdir(parents=True)
    (dead / "sub" / "data-00000-of-00001.arrow").write_bytes(b"partial")
    old = time.time() - 3600
    os.utime(dead, (old, old))
    with staged_directory(tmp_path / "org--data" / "default" / "def456") as live:
        (live / ".inner.tmp").write_bytes(b"the writer's own temporary")
        os.utime(live, (old, old))
        os.utime(live / ".inner.tmp", (old, old))
        assert remove_stale_temporaries(tmp_path) == [dead]
        assert (live / ".inner.tmp").exists()
    assert not dead.exists()
    assert (tmp_path / "org--data" / "default" / "def456" / ".inner.tmp").exists()
