"""``import genbench.reranking`` loads neither sentence-transformers nor torch (nor sklearn, scipy, datasets)."""

from __future__ import annotations

import json
import subprocess
import sys


def test_import_is_light():
    code = (
        "import json, sys, genbench.reranking, genbench.reranking._evaluation;"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    loaded = set(
        json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    )
    assert not loaded & {"torch", "sentence_transformers", "transformers", "sklearn", "scipy", "datasets"}
