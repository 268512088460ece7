"""`-T harness=pi` and `-T harness=openclaw`: the paper's common harness, Mario Zechner's `pi` coding agent (Pi
0.84.2), and OpenClaw (2026.6.34, its embedded agent: `openclaw agent --local`), run non-interactively in the
sandbox with their own tools (paper App. E).

Their model calls go to the Inspect model under evaluation through Inspect's sandbox agent bridge (an
OpenAI-compatible endpoint on the container's loopback, declared to each CLI as a custom provider), so the task's
message, token and time limits count them as for every harness. Neither takes MCP tools here: `run_public` and
`reset` are reached from their shell through `vgb_env`, as under mini-swe-agent. Nothing is to leave the sandbox
(which has no network anyway): pi runs with `--offline` and PI_OFFLINE/PI_TELEMETRY=0/PI_SKIP_VERSION_CHECK, and
with no extensions, skills, prompt templates, themes or context files; OpenClaw with `update.checkOnStart` off,
its `coding` tool profile and its web tools denied.

The CLIs come from the image scripts/harness-clis.sh builds; a sandbox without one (or with another version)
fails the sample with one line naming that command. A CLI that exits non-zero ends generation: the store records
why (exit status and stderr tail), and the scorer gives U when no verifier was written, as for the default harness.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Callable

from inspect_ai.agent import Agent, AgentState, agent, sandbox_agent_bridge
from inspect_ai.model import ChatMessageUser
from inspect_ai.util import ExecResult, SandboxEnvironment, sandbox, store

BUILD_COMMAND = "scripts/harness-clis.sh build"
BRIDGE_PORT_KEY = "verifierbench:bridged_cli_port"
PROVIDER = "inspect"  # the custom provider each CLI sends its requests to; model "inspect" is the eval's model
STDERR_TAIL_CHARS = 1500


class CliMissing(RuntimeError):
    """The harness's CLI is not in the sandbox: the image was built without it."""


def missing_cli_message(harness: str, detail: str) -> str:
    return f"harness {harness}: its CLI is not in the sandbox image ({detail}); build the image with {BUILD_COMMAND}"


@dataclass(frozen=True)
class BridgedCli:
    """How to configure and start one CLI against the bridge.

    `config` writes the CLI's files under its fresh home directory: {relative path: contents} for a bridge port.
    `command` is the CLI's argv for (home, system prompt, task prompt).
    """

    harness: str
    version: str  # the pinned one (scripts/harness-clis.sh); `<executable> --version` must print it
    executable: str
    env: dict[str, str]
    config: Callable[[int], dict[str, str]]
    command: Callable[[str, str, str], list[str]]
    endpoint_env: str = ""  # a variable the CLI reads the endpoint's base URL from (http://127.0.0.1:PORT), if any


def openai_provider(port: int, max_tokens: int | None = None) -> dict:
    """The bridge as an OpenAI-compatible provider with one model, "inspect"."""
    model: dict = {"id": "inspect", "name": "Inspect model under evaluation", "contextWindow": 1_000_000,
                   "reasoning": False, "input": ["text"]}
    if max_tokens:
        model["maxTokens"] = max_tokens
    return {"baseUrl": f"http://127.0.0.1:{port}/v1", "api": "openai-completions", "apiKey": "bridge", "models": [model]}


def pi_config(port: int) -> dict[str, str]:
    provider = openai_provider(port)
    # The bridge speaks chat completions; the eval's own GenerateConfig decides reasoning.
    provider["compat"] = {"supportsDeveloperRole": False, "supportsReasoningEffort": False}
    return {"agent/models.json": json.dumps({"providers": {PROVIDER: provider}})}


# Where harness/openclaw_vgb.py binds its `python3` shims in vgb: OpenClaw's exec drops PYTHONPATH and takes PATH from
# a login shell, then prepends `tools.exec.pathPrepend` (under Docker the directory is absent: nothing found there).
OPENCLAW_SHIMS = "/opt/vgb-openclaw/bin"


def openclaw_config(port: int) -> dict[str, str]:
    provider = openai_provider(port, max_tokens=32768)
    provider["models"][0]["cost"] = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}
    return {".openclaw/openclaw.json": json.dumps({
        "update": {"checkOnStart": False},
        "tools": {"profile": "coding", "deny": ["web_search", "web_fetch", "browser"], "exec": {"pathPrepend": [OPENCLAW_SHIMS]}},
        "models": {"providers": {PROVIDER: provider}},
        "agents": {"defaults": {"model": {"primary": f"{PROVIDER}/inspect"}, "workspace": "/workspace"}},
    })}


PI = BridgedCli(
    harness="pi", version="0.84.2", executable="pi",
    # Pi's start-up network operations off (its README, "Telemetry and update checks").
    env={"PI_OFFLINE": "1", "PI_TELEMETRY": "0", "PI_SKIP_VERSION_CHECK": "1"},
    config=pi_config,
    command=lambda home, system, prompt: [
        "pi", "-p", "--offline", "--no-session", "--no-extensions", "--no-skills", "--no-prompt-templates",
        "--no-themes", "--no-context-files", "--provider", PROVIDER, "--model", "inspect",
        "--tools", "read,bash,edit,write",  # pi's coding tools; its grep/find/ls only duplicate the shell
        "--append-system-prompt", system, prompt],
)
OPENCLAW = BridgedCli(
    harness="openclaw", version="2026.6.34", executable="openclaw",
    env={"OPENCLAW_SKIP_CANVAS_HOST": "1", "OPENCLAW_SKIP_GMAIL_WATCHER": "1"},
    config=openclaw_config,
    # The embedded agent (no gateway daemon), one turn; its own command timeout far past the task's time limit.
    # It has no system-prompt option: the harness's instructions lead the message.
    command=lambda home, system, prompt: [
        "openclaw", "agent", "--local", "--agent", "main", "--timeout", "86400", "--message", f"{system}\n\n{prompt}"],
)
BRIDGED_CLIS = {cli.harness: cli for cli in (PI, OPENCLAW)}


def in_container(cli: BridgedCli) -> BridgedCli:
    """`cli` as it runs in a container (the harness image, or a code task's image with the CLIs copied in): on the
    image's own $PATH, where the vgb record's PATH names its toolchain's mount (harness/claude_vgb.py)."""
    return replace(cli, env={name: value for name, value in cli.env.items() if name != "PATH"})


@agent(name="bridged_cli")
def bridged_cli_agent(cli: BridgedCli, system_prompt: str, cwd: str = "/workspace", generation_end_key: str = "") -> Agent:
    """One CLI in the sandbox, its model bridged to the eval's model.

    Args:
      cli: Which CLI (PI, OPENCLAW), in a container sandbox (pi in the vgb sandbox is harness/pi_vgb.py's).
      system_prompt: The harness's instructions.
      cwd: The directory the CLI works in.
      generation_end_key: The store key where a failed run's reason is recorded ("" raises instead).
    """
    async def execute(state: AgentState) -> AgentState:
        box = sandbox()
        version = await check_cli(box, cli)
        port = next_port()
        if not version.success:
            return fail(f"{cli.executable} --version", version.returncode, version.stderr or version.stdout, generation_end_key, state)
        async with sandbox_agent_bridge(state, port=port) as bridge:
            home = f"/tmp/vgb-{cli.harness}-{port}"  # the CLI's config and state, fresh per run, off the workspace
            for path, contents in cli.config(bridge.port).items():
                await box.exec(["mkdir", "-p", f"{home}/{path.rsplit('/', 1)[0]}"])
                await box.write_file(f"{home}/{path}", contents)
            env = cli.env | {"HOME": home, "PI_CODING_AGENT_DIR": f"{home}/agent"}
            result = await box.exec(cli.command(home, system_prompt, user_prompt(state)), cwd=cwd, env=env)
            if not result.success:
                fail(cli.executable, result.returncode, result.stderr or result.stdout, generation_end_key, state)
        return bridge.state

    return execute


async def check_cli(box: SandboxEnvironment, cli: BridgedCli) -> ExecResult[str]:
    """The result of `<cli> --version` in the container; CliMissing when the CLI is not there or another version is.
    A version check that fails is a CLI that fails (the caller records it), not a missing one."""
    if not (await box.exec(["sh", "-c", f"command -v {cli.executable}"])).success:
        raise CliMissing(missing_cli_message(cli.harness, f"no `{cli.executable}` on $PATH"))
    found = await box.exec([cli.executable, "--version"], env=cli.env | {"HOME": "/tmp"})
    if found.success and cli.version not in found.stdout:
        version = " ".join(found.stdout.split()) or "?"
        raise CliMissing(missing_cli_message(cli.harness, f"`{cli.executable} --version`: {version}, where {cli.version} is pinned"))
    return found


def next_port() -> int:
    """A new loopback port for each run of an agent in the sample."""
    port = int(store().get(BRIDGE_PORT_KEY, 13230)) + 1
    store().set(BRIDGE_PORT_KEY, port)
    return port


def in_vgb(box: SandboxEnvironment) -> bool:
    from verifierbench.sandboxes.vgb_provider import VgbSandboxEnvironment

    try:
        box.as_type(VgbSandboxEnvironment)  # sandbox() is a proxy: isinstance would not see through it
    except TypeError:
        return False
    return True


def fail(command: str, returncode: int, output: str, generation_end_key: str, state: AgentState) -> AgentState:
    """Records why the CLI failed where the scorer reads it (or raises, without a key)."""
    reason = failure_note(command, returncode, output)
    if not generation_end_key:
        raise RuntimeError(reason)
    store().set(generation_end_key, reason)
    return state


def user_prompt(state: AgentState) -> str:
    """The sample's user messages, in order: the task prompt the CLI is given."""
    return "\n\n".join(message.text for message in state.messages if isinstance(message, ChatMessageUser))


def failure_note(executable: str, returncode: int, stderr: str) -> str:
    """One line for the log: how the CLI ended and the tail of what it printed."""
    tail = " ".join(stderr.split())[-STDERR_TAIL_CHARS:]
    return f"{executable} exited with status {returncode}" + (f": {tail}" if tail else " (no output)")
