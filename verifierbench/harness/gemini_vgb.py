"""`-T harness=gemini_cli` in the no-Docker vgb sandbox: Gemini CLI 0.60.0 on the project's endpoint
(harness/model_endpoint.py, Google's generateContent, streamed), run by the same checked node as pi
(harness/pi_vgb.py), with the same forwarder, socket and public Inspect bridge.

Its package tree is the one scripts/harness-clis.sh caches (or `python -m verifierbench.harness.gemini_vgb fetch`),
checked before use as pi's is: a trusted store, node's sha256 and a digest of the whole tree, bound read-only into the
command. It runs as inspect-swe runs it under Docker: `--model gemini-2.5-pro` (inspect-swe's default: it bypasses
the auto-router; the endpoint answers with the eval's model whatever is named), `--yolo`, text output, the API-key
auth with its base URL on the endpoint, the harness's instructions leading the prompt (it has no system-prompt
option), and the image's system settings (docker/gemini-system-settings.json: web tools excluded, usage statistics,
telemetry and auto-update off) as its user settings. `run_public` and `reset` are reached from its shell through
`vgb_env`, as under pi.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from inspect_ai.agent import Agent, agent

from verifierbench.executor.bwrap import Bind
from verifierbench.harness.bridged_clis import BridgedCli
from verifierbench.harness.pi_vgb import NODE_INSIDE, NODE_OPTIONS, NODE_VERSION, NpmTree, cli_in_vgb
from verifierbench.harness.pi_vgb import INSIDE as PI_INSIDE

VERSION = "0.60.0"  # scripts/harness-clis.sh GEMINI_CLI
PACKAGE = f"@google/gemini-cli@{VERSION}"
TREE_SHA256 = "78e0b6253c6f9ba6c6c6a1fdba198f37bfc0d618125f2d5eea88dc5ddf3f7f80"  # pi_vgb.tree_digest of its install
FETCH_COMMAND = "python -m verifierbench.harness.gemini_vgb fetch"
INSIDE = "/opt/vgb-gemini/gemini-cli"
PATH_INSIDE = f"{PI_INSIDE}/node/bin:{INSIDE}/node_modules/.bin:/usr/local/bin:/usr/bin:/bin"
SYSTEM_SETTINGS = Path(__file__).resolve().parent.parent / "sandboxes" / "docker" / "gemini-system-settings.json"
MODEL = "gemini-2.5-pro"  # inspect-swe's gemini_model default


def gemini_config(port: int) -> dict[str, str]:
    """The image's system settings, plus the API-key auth inspect-swe pins (with a base URL set, Gemini CLI would
    otherwise pick an auth type its non-interactive mode refuses)."""
    settings = json.loads(SYSTEM_SETTINGS.read_text()) | {"security": {"auth": {"selectedType": "gemini-api-key"}}}
    return {".gemini/settings.json": json.dumps(settings)}


GEMINI_CLI = BridgedCli(
    harness="gemini_cli", version=VERSION, executable="gemini",
    env={"GEMINI_API_KEY": "bridge", "GEMINI_CLI_TRUST_WORKSPACE": "true", "PATH": PATH_INSIDE, "NODE_OPTIONS": NODE_OPTIONS},
    config=gemini_config,
    command=lambda home, system, prompt: ["gemini", "--model", MODEL, "--output-format", "text", "--yolo", "--prompt",
                                          f"{system}\n\n{prompt}"],
    endpoint_env="GOOGLE_GEMINI_BASE_URL",
)


TREE = NpmTree(harness="gemini_cli", title="Gemini CLI", version=VERSION, package=PACKAGE, directory=f"gemini-cli-{VERSION}",
               executable="gemini", tree_sha256=TREE_SHA256, fetch_command=FETCH_COMMAND)
toolchain = functools.cache(TREE.checked)  # the checked node and tree, once per process (or CliMissing in one line)


def fetch() -> None:
    """Fetches node and Gemini CLI into the cache the way scripts/harness-clis.sh does (npm, no install scripts)."""
    TREE.fetch()
    toolchain.cache_clear()
    print(f"Gemini CLI {VERSION} and node {NODE_VERSION} in {toolchain().tree}: checked")


@agent(name="gemini_cli_vgb")
def gemini_vgb_agent(system_prompt: str, cwd: str = "/workspace", generation_end_key: str = "") -> Agent:
    """Gemini CLI in the sample's vgb sandbox (no Docker), its model bridged to the eval's model.

    Args:
      system_prompt: The harness's instructions.
      cwd: The directory it works in.
      generation_end_key: The store key where a failed run's reason is recorded ("" raises instead).
    """
    return cli_in_vgb(GEMINI_CLI, mounts, system_prompt, cwd, generation_end_key)


def mounts() -> tuple[tuple[Bind, ...], dict[str, str]]:
    """The checked node and tree, bound read-only (the environment is GEMINI_CLI's)."""
    chain = toolchain()
    return (Bind(chain.node, NODE_INSIDE), Bind(chain.tree, INSIDE)), {}


if __name__ == "__main__":
    import sys

    if sys.argv[1:] != ["fetch"]:
        sys.exit(f"usage: {FETCH_COMMAND}")
    fetch()
