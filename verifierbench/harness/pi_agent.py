"""`-T harness=pi`: the paper's common harness, Mario Zechner's `pi` coding agent (paper App. E, Pi 0.84.2), run
non-interactively in the sandbox with its own tools (read, bash, edit, write).

Its model calls go to the Inspect model under evaluation through Inspect's sandbox agent bridge (an
OpenAI-compatible endpoint on the container's loopback, declared to pi as a custom provider in its models.json),
so the task's message, token and time limits count them as for every harness. Pi takes no MCP tools: `run_public`
and `reset` are reached from its shell through `vgb_env`, as under mini-swe-agent. Started with `--offline` and
PI_OFFLINE/PI_TELEMETRY/PI_SKIP_VERSION_CHECK, it makes no start-up network request (update check, install
telemetry), and with no extensions, skills, prompt templates, themes or context files it loads nothing from the
workspace but the task.

The CLI comes from the image scripts/harness-clis.sh builds; a sandbox without it fails the sample with one line
naming that command. A CLI that exits non-zero ends generation: the store records why (exit status and stderr
tail), and the scorer gives U when no verifier was written, as for the default harness.
"""

from __future__ import annotations

import json
import shlex

from inspect_ai.agent import Agent, AgentState, agent, sandbox_agent_bridge
from inspect_ai.model import ChatMessageUser
from inspect_ai.util import sandbox, store

PI_VERSION = "0.84.2"  # scripts/harness-clis.sh PI
PI_PROVIDER = "inspect"  # the custom provider pi sends the bridge's requests to; "inspect" is the eval's model
BUILD_COMMAND = "scripts/harness-clis.sh build"
BRIDGE_PORT_KEY = "verifierbench:pi_bridge_port"
STDERR_TAIL_CHARS = 1500
# Pi's start-up network operations off (its README, "Telemetry and update checks"), and nothing of the user's.
OFFLINE_ENV = {"PI_OFFLINE": "1", "PI_TELEMETRY": "0", "PI_SKIP_VERSION_CHECK": "1"}
QUIET_FLAGS = ["--offline", "--no-session", "--no-extensions", "--no-skills", "--no-prompt-templates", "--no-themes",
               "--no-context-files"]
TOOLS = "read,bash,edit,write"  # pi's coding tools; its grep/find/ls only duplicate the shell


class CliMissing(RuntimeError):
    """The harness's CLI is not in the sandbox: the image was built without it."""


def missing_cli_message(harness: str, detail: str) -> str:
    return f"harness {harness}: its CLI is not in the sandbox image ({detail}); build the image with {BUILD_COMMAND}"


@agent(name="pi")
def pi_agent(system_prompt: str, cwd: str = "/workspace", generation_end_key: str = "") -> Agent:
    """Pi in the sandbox, its model bridged to the eval's model.

    Args:
      system_prompt: Appended to pi's own system prompt (`--append-system-prompt`).
      cwd: The directory pi works in.
      generation_end_key: The store key where a failed run's reason is recorded ("" raises instead).
    """
    async def execute(state: AgentState) -> AgentState:
        box = sandbox()
        found = await box.exec(["sh", "-c", "command -v pi && pi --version"], env=OFFLINE_ENV | {"HOME": "/tmp"})
        if not found.success:
            raise CliMissing(missing_cli_message("pi", "no `pi` on $PATH"))
        version = (found.stdout.strip().splitlines() or [""])[-1].strip()
        if version != PI_VERSION:
            raise CliMissing(missing_cli_message("pi", f"pi {version or '?'} where {PI_VERSION} is pinned"))
        port = store().get(BRIDGE_PORT_KEY, 13230) + 1  # a new port for each run of the agent in the sample
        store().set(BRIDGE_PORT_KEY, port)
        async with sandbox_agent_bridge(state, port=port) as bridge:
            home = f"/tmp/vgb-pi-{port}"  # pi's config directory, fresh per run (the tmpfs; not the delivered workspace)
            await box.exec(["mkdir", "-p", f"{home}/agent"])
            await box.write_file(f"{home}/agent/models.json", json.dumps(models_config(bridge.port)))
            env = OFFLINE_ENV | {"HOME": home, "PI_CODING_AGENT_DIR": f"{home}/agent"}
            command = ["pi", "-p", *QUIET_FLAGS, "--provider", PI_PROVIDER, "--model", "inspect", "--tools", TOOLS,
                       "--append-system-prompt", system_prompt, user_prompt(state)]
            result = await box.exec(command, cwd=cwd, env=env)
            if not result.success:
                reason = failure_note(result.returncode, result.stderr or result.stdout)
                if not generation_end_key:
                    raise RuntimeError(reason)
                store().set(generation_end_key, reason)
        return bridge.state

    return execute


def models_config(port: int) -> dict:
    """Pi's models.json: one OpenAI-compatible provider at the bridge, its one model "inspect"."""
    return {"providers": {PI_PROVIDER: {
        "baseUrl": f"http://127.0.0.1:{port}/v1", "api": "openai-completions", "apiKey": "bridge",
        # The bridge speaks OpenAI's chat completions; the eval's own GenerateConfig decides reasoning.
        "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
        "models": [{"id": "inspect", "name": "Inspect model under evaluation", "contextWindow": 1_000_000}],
    }}}


def user_prompt(state: AgentState) -> str:
    """The sample's user messages, in order: the task prompt pi is given."""
    return "\n\n".join(message.text for message in state.messages if isinstance(message, ChatMessageUser))


def failure_note(returncode: int, stderr: str) -> str:
    """One line for the log: how pi ended and the tail of what it printed."""
    tail = " ".join(stderr.split())[-STDERR_TAIL_CHARS:]
    return f"pi exited with status {returncode}" + (f": {shlex.quote(tail)}" if tail else " (no output)")
