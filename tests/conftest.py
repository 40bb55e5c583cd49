"""Test-wide setup: no network, Hugging Face and genbench caches in a temporary directory."""

from __future__ import annotations

import os
import tempfile

_TMP = tempfile.mkdtemp(prefix="genbench-tests-")
os.environ.update(
    {
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "HF_HUB_DISABLE_TELEMETRY": "1",
        "HF_HOME": os.path.join(_TMP, "hf_home"),
        "HF_DATASETS_CACHE": os.path.join(_TMP, "hf_datasets"),
        "GENBENCH_CACHE": os.path.join(_TMP, "genbench_cache"),
    }
)
os.environ.pop("GENBENCH_TASKS_PATH", None)
