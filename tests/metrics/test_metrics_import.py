"""Importing genbench.metrics loads no heavy library."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("datasets", "evaluate", "sklearn", "scipy", "sacrebleu", "seqeval", "torch")


def test_import_is_light():
    code = (
        "import sys, genbench.metrics, genbench.metrics._builtin; "
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert output.strip() == ""
