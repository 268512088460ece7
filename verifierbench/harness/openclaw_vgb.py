"""`-T harness=openclaw` in the no-Docker vgb sandbox: OpenClaw 2026.6.34's embedded agent on the project's endpoint
(harness/model_endpoint.py, OpenAI chat completions), run by the same checked node as pi (harness/pi_vgb.py), with
the same forwarder, socket and public Inspect bridge.

Its package tree is the one scripts/harness-clis.sh caches (or `python -m verifierbench.harness.openclaw_vgb fetch`),
checked before use as pi's is: a trusted store, node's sha256 and a digest of the whole tree. Both are bound read-only
into the command. Its configuration (harness/bridged_clis.py openclaw_config) keeps update checks off, the coding
tool profile and the web tools denied; `run_public` and `reset` are reached from its shell through `vgb_env`.

Its `exec` tool drops PYTHONPATH (and every other PYTHON* variable) from the commands it runs, by its host-environment
policy (dist/host-env-security-*.js), so its shell's `python3` would not find `vgb_env`. Its PATH comes from a login
shell, with its configuration's `tools.exec.pathPrepend` in front (bridged_clis.openclaw_config): a `python3` (and
`python`) there puts the sandbox's library back and runs the system Python.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import tempfile

from inspect_ai.agent import Agent, agent

from verifierbench.executor.bwrap import Bind
from verifierbench.executor.layout import LIBRARY_ROOT
from verifierbench.harness.bridged_clis import OPENCLAW, OPENCLAW_SHIMS
from verifierbench.harness.pi_vgb import NODE_INSIDE, NODE_OPTIONS, NODE_VERSION, NpmTree, cli_in_vgb
from verifierbench.harness.pi_vgb import INSIDE as PI_INSIDE

PACKAGE = f"openclaw@{OPENCLAW.version}"  # scripts/harness-clis.sh OPENCLAW
TREE_SHA256 = "eb5078a7ef0a719b9b43ba2751a78d5bf83a5deffcbbe330542aed1d2b29e2a4"  # pi_vgb.tree_digest of its install
FETCH_COMMAND = "python -m verifierbench.harness.openclaw_vgb fetch"
INSIDE = "/opt/vgb-openclaw/openclaw"
SHIMS_INSIDE = OPENCLAW_SHIMS
PATH_INSIDE = f"{SHIMS_INSIDE}:{PI_INSIDE}/node/bin:{INSIDE}/node_modules/.bin:/usr/local/bin:/usr/bin:/bin"
PYTHON_SHIM = f'#!/bin/sh\nPYTHONPATH="{LIBRARY_ROOT}${{PYTHONPATH:+:$PYTHONPATH}}" exec /usr/bin/python3 "$@"\n'


TREE = NpmTree(harness="openclaw", title="OpenClaw", version=OPENCLAW.version, package=PACKAGE,
               directory=f"openclaw-{OPENCLAW.version}", executable="openclaw", tree_sha256=TREE_SHA256,
               fetch_command=FETCH_COMMAND)
toolchain = functools.cache(TREE.checked)  # the checked node and tree, once per process (the digest reads 356 MB)


def fetch() -> None:
    """Fetches node and OpenClaw into the cache the way scripts/harness-clis.sh does (npm, no install scripts)."""
    TREE.fetch()
    toolchain.cache_clear()
    print(f"OpenClaw {OPENCLAW.version} and node {NODE_VERSION} in {toolchain().tree}: checked")


@agent(name="openclaw_vgb")
def openclaw_vgb_agent(system_prompt: str, cwd: str = "/workspace", generation_end_key: str = "") -> Agent:
    """OpenClaw in the sample's vgb sandbox (no Docker), its model bridged to the eval's model.

    Args:
      system_prompt: The harness's instructions.
      cwd: The directory it works in.
      generation_end_key: The store key where a failed run's reason is recorded ("" raises instead).
    """
    return cli_in_vgb(OPENCLAW, mounts, system_prompt, cwd, generation_end_key)


def mounts() -> tuple[tuple[Bind, ...], dict[str, str]]:
    """The checked node and tree and the Python shims, bound read-only, and its environment."""
    chain = toolchain()
    binds = (Bind(chain.node, NODE_INSIDE), Bind(chain.tree, INSIDE), Bind(python_shims(), SHIMS_INSIDE))
    return binds, {"PATH": PATH_INSIDE, "NODE_OPTIONS": NODE_OPTIONS}


@functools.cache
def python_shims() -> str:
    """A directory of this process (a fresh one: no other user's) holding `python3` and `python` (PYTHON_SHIM),
    readable by the sandbox's uid; removed at exit."""
    directory = tempfile.mkdtemp(prefix="verifierbench-openclaw-shims-")
    os.chmod(directory, 0o755)
    for name in ("python3", "python"):
        path = os.path.join(directory, name)
        with open(path, "w", encoding="utf-8") as shim:
            shim.write(PYTHON_SHIM)
        os.chmod(path, 0o755)
    atexit.register(shutil.rmtree, directory, True)
    return directory


if __name__ == "__main__":
    import sys

    if sys.argv[1:] != ["fetch"]:
        sys.exit(f"usage: {FETCH_COMMAND}")
    fetch()
