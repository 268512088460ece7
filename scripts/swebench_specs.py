"""Regenerates verifierbench/sources/swebench/data/specs.json from SWE-bench's published wheel.

SWE-bench 5.x (the project's dependency, for grading and log parsers) no longer ships the per-version
environment specifications; 4.1.0 was the last release that did (`swebench.harness.constants.python`,
plain data). This reads that module from the wheel without installing or importing the package, and
keeps the three repositories the code tasks use. Run: `python scripts/swebench_specs.py` (needs pip
and the package index).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

VERSION = "4.1.0"
REPOS = ("django/django", "astropy/astropy", "matplotlib/matplotlib")
OUT = Path(__file__).resolve().parents[1] / "verifierbench" / "sources" / "swebench" / "data" / "specs.json"


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", f"swebench=={VERSION}", "-d", tmp], check=True)
        wheel = next(Path(tmp).glob("swebench-*.whl"))
        with zipfile.ZipFile(wheel) as archive:
            source = archive.read("swebench/harness/constants/python.py").decode()
        digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    namespace: dict = {}
    exec(compile(source, "swebench/harness/constants/python.py", "exec"), namespace)  # data only: no imports
    specs = {repo: namespace["MAP_REPO_VERSION_TO_SPECS_PY"][repo] for repo in REPOS}
    record = {"source": f"swebench {VERSION} wheel, swebench/harness/constants/python.py (MIT, see LICENSE-swebench)",
              "wheel_sha256": digest, "requirements_paths": {r: namespace["MAP_REPO_TO_REQS_PATHS"].get(r, []) for r in REPOS},
              "specs": specs}
    OUT.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT} ({sum(len(v) for v in specs.values())} versions)")


if __name__ == "__main__":
    main()
