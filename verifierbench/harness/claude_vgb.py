"""`-T harness=claude_code` in the no-Docker vgb sandbox: Claude Code 2.1.263 (npm's linux-x64 package, one native
binary) with its model calls on the project's own endpoint (harness/model_endpoint.py), as pi's are
(harness/pi_vgb.py: the same forwarder, socket and public Inspect bridge, answering Anthropic messages here).

The binary is the one scripts/harness-clis.sh caches (or `python -m verifierbench.harness.claude_vgb fetch`), checked
before use: a trusted store, and npm's file by its sha256. It is bound read-only into the command. Claude Code runs
with its non-essential traffic, auto-updater and telemetry off, permissions skipped (the sandbox is the boundary),
web tools disallowed, and no MCP server: `run_public` and `reset` are reached from its Bash tool through `vgb_env`,
as under pi and mini-swe-agent.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from inspect_ai.agent import Agent, agent

from verifierbench.core import safe_fs
from verifierbench.executor.bwrap import Bind
from verifierbench.harness.bridged_clis import BridgedCli, CliMissing
from verifierbench.harness.pi_vgb import cache_root, cli_in_vgb, file_sha256, npm_pack

VERSION = "2.1.263"  # scripts/harness-clis.sh CLAUDE_CODE
PACKAGE = f"@anthropic-ai/claude-code-linux-x64@{VERSION}"
BINARY_SHA256 = "26d020351e8112f4006790f3cfce43b4c9df0c1bb1d0e542364d64151b81d5ba"  # that package's `claude`
FETCH_COMMAND = "python -m verifierbench.harness.claude_vgb fetch"
INSIDE = "/opt/vgb-claude/claude"
PATH_INSIDE = "/opt/vgb-claude:/usr/local/bin:/usr/bin:/bin"


def binary_path(root: Path) -> Path:
    return root / "packages" / f"claude-code-{VERSION}" / "package" / "claude"


def claude_config(port: int) -> dict[str, str]:
    """Its settings (the endpoint as ANTHROPIC_BASE_URL; a key from apiKeyHelper, the one source of a key Claude Code
    reads without a login) and its onboarding marked done."""
    return {".claude/settings.json": json.dumps({"apiKeyHelper": "echo bridge",
                                                 "env": {"ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}"}}),
            ".claude.json": json.dumps({"hasCompletedOnboarding": True})}


CLAUDE_CODE = BridgedCli(
    harness="claude_code", version=VERSION, executable="claude",
    env={"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1",
         "IS_SANDBOX": "1", "PATH": PATH_INSIDE},
    config=claude_config,
    command=lambda home, system, prompt: [
        "claude", "--print", "--dangerously-skip-permissions", "--model", "inspect",
        "--disallowed-tools", "WebSearch", "WebFetch", "--append-system-prompt", system, "--", prompt],
)


def missing(what: str) -> CliMissing:
    return CliMissing(f"harness claude_code in the vgb sandbox: {what}; fetch Claude Code {VERSION} with `{FETCH_COMMAND}`")


@functools.cache
def toolchain() -> str:
    """The checked binary's path (once per process), or CliMissing in one line."""
    root = cache_root()
    binary = binary_path(root)
    if not binary.is_file():
        raise missing(f"no Claude Code in {root}")
    try:
        safe_fs.trusted_store(root / "packages", create=False)
    except (safe_fs.UntrustedStore, OSError) as exc:
        raise missing(f"the cache is not trusted ({exc})") from None
    if file_sha256(binary) != BINARY_SHA256:
        raise missing(f"{binary} is not npm's {PACKAGE} (sha256 differs)")
    return str(binary)


def fetch() -> None:
    """Fetches the package into the cache the way scripts/harness-clis.sh does (npm pack, nothing run)."""
    target = binary_path(cache_root()).parent.parent
    if not (target / "package" / "claude").is_file():
        npm_pack(PACKAGE, target)
    toolchain.cache_clear()
    print(f"Claude Code {VERSION} in {toolchain()}: checked")


@agent(name="claude_code_vgb")
def claude_vgb_agent(system_prompt: str, cwd: str = "/workspace", generation_end_key: str = "") -> Agent:
    """Claude Code in the sample's vgb sandbox (no Docker), its model bridged to the eval's model.

    Args:
      system_prompt: The harness's instructions.
      cwd: The directory it works in.
      generation_end_key: The store key where a failed run's reason is recorded ("" raises instead).
    """
    return cli_in_vgb(CLAUDE_CODE, mounts, system_prompt, cwd, generation_end_key)


def mounts() -> tuple[tuple[Bind, ...], dict[str, str]]:
    """The checked binary, bound read-only; no environment of its own."""
    return (Bind(toolchain(), INSIDE),), {}


if __name__ == "__main__":
    import sys

    if sys.argv[1:] != ["fetch"]:
        sys.exit(f"usage: {FETCH_COMMAND}")
    fetch()
