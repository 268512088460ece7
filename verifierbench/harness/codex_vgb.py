"""`-T harness=codex_cli` in the no-Docker vgb sandbox: Codex 0.149.0 (npm's linux-x64 package: static musl binaries)
on the project's endpoint (harness/model_endpoint.py, the OpenAI Responses API, streamed), with the same forwarder,
socket and public Inspect bridge as pi (harness/pi_vgb.py).

Its binaries are the ones scripts/harness-clis.sh caches (or `python -m verifierbench.harness.codex_vgb fetch`),
checked before use: a trusted store and each file's sha256. They are bound read-only into the command. Codex runs as
inspect-swe runs it under Docker: `codex exec`, its own sandbox and approvals off (`danger-full-access`, `never`: the
vgb sandbox is the boundary), analytics, plugins and web search off, the harness's instructions as its global
AGENTS.md. Its model slug is the eval model's name, which is what inspect-swe gives Codex for a model that is not
OpenAI's (Codex's generic profile). No MCP server: `run_public` and `reset` are reached from its shell through
`vgb_env`, as under pi.
"""

from __future__ import annotations

import dataclasses
import functools
from pathlib import Path

from inspect_ai.agent import Agent, agent
from inspect_ai.model import get_model

from verifierbench.core import safe_fs
from verifierbench.executor.bwrap import Bind
from verifierbench.harness.bridged_clis import BridgedCli, CliMissing
from verifierbench.harness.pi_vgb import cache_root, cli_in_vgb, file_sha256, npm_pack

VERSION = "0.149.0"  # scripts/harness-clis.sh CODEX
PACKAGE = f"@openai/codex@{VERSION}-linux-x64"
BINARIES_SHA256 = {"codex": "bbc3341e44c9ead340ed9570c17be936e37870f570751a941699ffd04d672827",
                   "codex-code-mode-host": "ba0f620a1d242a7555750e96c30c4c03b8b89ec0d4cff987e21bcd79fa18a363"}
FETCH_COMMAND = "python -m verifierbench.harness.codex_vgb fetch"
INSIDE = "/opt/vgb-codex"
PATH_INSIDE = f"{INSIDE}:/usr/local/bin:/usr/bin:/bin"


def binaries_path(root: Path) -> Path:
    return root / "packages" / f"codex-{VERSION}-linux-x64" / "package" / "vendor" / "x86_64-unknown-linux-musl" / "bin"


def codex_config(port: int, instructions: str) -> dict[str, str]:
    """config.toml (the endpoint as a Responses-API provider; analytics and plugin sync off) and the instructions."""
    toml = "\n".join([
        'model_provider = "inspect"', 'preferred_auth_method = "apikey"', 'web_search = "disabled"',
        "[analytics]", "enabled = false", "[features]", "plugins = false",
        "[model_providers.inspect]", 'name = "inspect"', f'base_url = "http://127.0.0.1:{port}/v1"',
        'env_key = "OPENAI_API_KEY"', 'wire_api = "responses"', "stream_idle_timeout_ms = 3600000", ""])
    return {".codex/config.toml": toml, ".codex/AGENTS.md": instructions}


def codex_argv(slug: str, prompt: str) -> list[str]:
    return ["codex", "exec", "--color", "never", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox",
            "--model", slug, "--", prompt]


CODEX = BridgedCli(
    harness="codex_cli", version=VERSION, executable="codex",
    env={"OPENAI_API_KEY": "bridge", "RUST_LOG": "warning", "PATH": PATH_INSIDE},
    config=lambda port: codex_config(port, ""),
    command=lambda home, system, prompt: codex_argv("inspect", prompt),
)


def missing(what: str) -> CliMissing:
    return CliMissing(f"harness codex_cli in the vgb sandbox: {what}; fetch Codex {VERSION} with `{FETCH_COMMAND}`")


@functools.cache
def toolchain() -> str:
    """The checked binaries' directory (once per process), or CliMissing in one line."""
    root = cache_root()
    directory = binaries_path(root)
    if not (directory / "codex").is_file():
        raise missing(f"no Codex in {root}")
    try:
        safe_fs.trusted_store(root / "packages", create=False)
    except (safe_fs.UntrustedStore, OSError) as exc:
        raise missing(f"the cache is not trusted ({exc})") from None
    found = {path.name for path in directory.iterdir()}
    if found != set(BINARIES_SHA256) or any(file_sha256(directory / name) != digest for name, digest in BINARIES_SHA256.items()):
        raise missing(f"{directory} is not npm's {PACKAGE} (its files or their sha256 differ)")
    return str(directory)


def fetch() -> None:
    """Fetches the package into the cache the way scripts/harness-clis.sh does (npm pack, nothing run)."""
    if not (binaries_path(cache_root()) / "codex").is_file():
        npm_pack(PACKAGE, binaries_path(cache_root()).parents[3])
    toolchain.cache_clear()
    print(f"Codex {VERSION} in {toolchain()}: checked")


def for_this_run(system_prompt: str) -> BridgedCli:
    """Codex with the harness's instructions and the eval model's name as its slug."""
    slug = get_model().name
    return dataclasses.replace(
        CODEX, config=lambda port: codex_config(port, system_prompt),
        command=lambda home, system, prompt: codex_argv(slug, prompt))


@agent(name="codex_cli_vgb")
def codex_vgb_agent(system_prompt: str, cwd: str = "/workspace", generation_end_key: str = "") -> Agent:
    """Codex in the sample's vgb sandbox (no Docker), its model bridged to the eval's model.

    Args:
      system_prompt: The harness's instructions.
      cwd: The directory it works in.
      generation_end_key: The store key where a failed run's reason is recorded ("" raises instead).
    """
    return cli_in_vgb(for_this_run(system_prompt), mounts, system_prompt, cwd, generation_end_key)  # in the sample


def mounts() -> tuple[tuple[Bind, ...], dict[str, str]]:
    """The checked binaries, bound read-only (the environment is CODEX's)."""
    return (Bind(toolchain(), INSIDE),), {}


if __name__ == "__main__":
    import sys

    if sys.argv[1:] != ["fetch"]:
        sys.exit(f"usage: {FETCH_COMMAND}")
    fetch()
