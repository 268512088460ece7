"""`-T harness=openclaw` in the no-Docker vgb sandbox: OpenClaw 2026.6.34's embedded agent on the project's endpoint
(harness/model_endpoint.py, OpenAI chat completions), run by the same checked node as pi (harness/pi_vgb.py), with
the same forwarder, socket and public Inspect bridge.

Its package tree is the one scripts/harness-clis.sh caches (or `python -m verifierbench.harness.openclaw_vgb fetch`),
checked before use as pi's is: a trusted store, node's sha256 and a digest of the whole tree. Both are bound read-only
into the command. Its configuration (harness/bridged_clis.py openclaw_config) keeps update checks off, the coding
tool profile and the web tools denied; `run_public` and `reset` are reached from its shell through `vgb_env`.
"""

from __future__ import annotations

import functools

from inspect_ai.agent import Agent, agent

from verifierbench.executor.bwrap import Bind
from verifierbench.harness.bridged_clis import OPENCLAW
from verifierbench.harness.pi_vgb import NODE_INSIDE, NODE_OPTIONS, NODE_VERSION, NpmTree, cli_in_vgb
from verifierbench.harness.pi_vgb import INSIDE as PI_INSIDE

PACKAGE = f"openclaw@{OPENCLAW.version}"  # scripts/harness-clis.sh OPENCLAW
TREE_SHA256 = "eb5078a7ef0a719b9b43ba2751a78d5bf83a5deffcbbe330542aed1d2b29e2a4"  # pi_vgb.tree_digest of its install
FETCH_COMMAND = "python -m verifierbench.harness.openclaw_vgb fetch"
INSIDE = "/opt/vgb-openclaw/openclaw"
PATH_INSIDE = f"{PI_INSIDE}/node/bin:{INSIDE}/node_modules/.bin:/usr/local/bin:/usr/bin:/bin"


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
    """The checked node and tree, bound read-only, and its environment."""
    chain = toolchain()
    return (Bind(chain.node, NODE_INSIDE), Bind(chain.tree, INSIDE)), {"PATH": PATH_INSIDE, "NODE_OPTIONS": NODE_OPTIONS}


if __name__ == "__main__":
    import sys

    if sys.argv[1:] != ["fetch"]:
        sys.exit(f"usage: {FETCH_COMMAND}")
    fetch()
