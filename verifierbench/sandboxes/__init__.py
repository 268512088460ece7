"""The generation sandbox: where the agent writes its verifier during `inspect eval`, and everything it is made of.

- `vgb_provider.py`: the default `vgb` sandbox, an Inspect sandbox provider on bubblewrap (no Docker).
- `docker_provider.py`: `-T sandbox=docker`, Inspect's Docker sandbox registered as `verifierbench-docker` (an exec
  runc could not start is started again).
- `spec.py`: the `-T sandbox=` names (`SandboxName`) and the Inspect sandbox spec of each (`sandbox_spec`).
- `in_sandbox_lib/vgb_env/`: the helper module importable inside every sandbox (`import vgb_env`, standard library
  only), mounted at /opt/vgb/lib; the verifier executor mounts it too.
- Container configs, package data: `docker/` (compose files and Dockerfiles of the default and the CLI-harness
  images), `k8s/values.yaml`, `swebench/compose.yaml.j2` (a code task's own SWE-bench image; rendered per instance by
  sources/swebench/docker_compose.py, which knows SWE-bench's image names). README.md says how to use each.

Not here: the **verifier executor** (`verifierbench/executor/`), the bubblewrap sandbox where a frozen verifier
decides one hidden case, and the SWE-bench **test runner** inside it (`sources/swebench/sandbox_runner/`).
The type names `vgb` and `verifierbench-docker` are recorded in eval logs, and the config paths too: neither changes.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

CONTAINER_CONFIGS = Path(str(files("verifierbench") / "sandboxes"))  # docker/, k8s/, swebench/: found in a wheel install too
IN_SANDBOX_LIB = Path(__file__).resolve().parent / "in_sandbox_lib"  # mounted at /opt/vgb/lib, on PYTHONPATH inside
VGB_ENV = IN_SANDBOX_LIB / "vgb_env"
