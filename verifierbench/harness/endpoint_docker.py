"""A CLI (pi, OpenClaw: harness/bridged_clis.py; Claude Code: harness/claude_vgb.py's record) in the docker sandbox on
the project's model endpoint (`-T transport=unix-socket`, pi's and Claude Code's default there), instead of Inspect's
polled sandbox bridge.

The container is made with a fresh host directory of its sample bound read-only at ENDPOINT_INSIDE
(sandboxes/docker_provider.py; docker/harness.compose.yaml and the code tasks' overlay bind it). Here the endpoint
(harness/model_endpoint.py) makes its socket in that directory, owned by the container's user (mode 0600), beside
`sandboxes/loopback_forward.py` and the CLI's configuration. In the container the forwarder listens on the
container's loopback (network none: a loopback and nothing else) and pipes each connection to the socket; the CLI is
told the endpoint is there. Each request reaches the host as soon as the CLI sends it: no poll. The model is reached
through Inspect's public in-process bridge (`agent_bridge`), so the task's limits count the calls as under Inspect's
sandbox bridge.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from inspect_ai.agent import Agent, AgentState, agent, agent_bridge
from inspect_ai.util import ExecResult, sandbox

from verifierbench.executor.isolation import running_as_root
from verifierbench.harness.bridged_clis import PI, BridgedCli, check_cli, fail, next_port, user_prompt
from verifierbench.harness.model_endpoint import SOCKET_NAME, Generate, bridge_generate, bridge_socket
from verifierbench.harness.pi_vgb import FORWARDER, first_leaf, write_home_template
from verifierbench.sandboxes.docker_provider import ENDPOINT_INSIDE, RetryingDockerSandbox


class NoEndpointMount(RuntimeError):
    """The container was made without the endpoint's directory (another compose file, or another sandbox)."""


@agent(name="bridged_cli_endpoint")
def endpoint_cli_agent(cli: BridgedCli, system_prompt: str, cwd: str = "/workspace", generation_end_key: str = "") -> Agent:
    """One CLI in the sample's docker container, its model calls answered on the project's endpoint.

    Args:
      cli: Which CLI (PI, OPENCLAW, or Claude Code's record in_container).
      system_prompt: The harness's instructions.
      cwd: The directory the CLI works in.
      generation_end_key: The store key where a failed run's reason is recorded ("" raises instead).
    """
    async def execute(state: AgentState) -> AgentState:
        box = sandbox().as_type(RetryingDockerSandbox)
        if box.endpoint_dir is None:
            raise NoEndpointMount(f"harness {cli.harness}: the container has no model endpoint directory at "
                                  f"{ENDPOINT_INSIDE} (its compose file binds none): use -T transport=inspect-sandbox-bridge")
        version = await check_cli(box, cli)
        port = next_port()
        if not version.success:
            return fail(f"{cli.executable} --version", version.returncode, version.stderr or version.stdout, generation_end_key, state)
        owner = await socket_owner(box)
        async with agent_bridge(state, web_search=False, code_execution=False, client_mcp_servers=False) as bridge:
            try:
                result = await run_on_endpoint(box, box.endpoint_dir, owner, bridge_generate(),
                                               cli.command("", system_prompt, user_prompt(state)), cwd, port, cli)
            except Exception as exc:  # a limit or termination the bridge raised, out of the endpoint's task group
                raise first_leaf(exc) from None
        if not result.success:
            fail(cli.executable, result.returncode, result.stderr or result.stdout, generation_end_key, state)
        return bridge.state

    return execute


async def socket_owner(box: RetryingDockerSandbox) -> int | None:
    """Whom the socket is given to: the container's user (no user-namespace remapping: its uid is the host's). None:
    this process's own uid already is that user's, or it cannot give it away (not root)."""
    found = await box.exec(["id", "-u"])
    uid = int(found.stdout.strip())
    if uid == os.geteuid():
        return None
    if not running_as_root():
        raise NoEndpointMount(f"the container's user (uid {uid}) could not reach a socket of this process's uid "
                              f"{os.geteuid()} (giving it away needs root): use -T transport=inspect-sandbox-bridge")
    return uid


async def run_on_endpoint(box: RetryingDockerSandbox, directory: Path, owner: int | None, generate: Generate,
                          argv: list[str], cwd: str, port: int, cli: BridgedCli) -> ExecResult[str]:
    """Runs `argv` (a CLI's command line) in `box` after its forwarder listens on 127.0.0.1:`port`, each model request
    answered by `generate` through the socket in `directory` (bound at ENDPOINT_INSIDE).

    Args:
      box: the sample's container.
      directory: the host side of its endpoint mount.
      owner: the uid the socket is given to (None: this process's).
      generate: answers each model request (the bridge's; a scripted one in tests).
      argv: the command (the CLI's, or a probe's).
      cwd: the directory it starts in.
      port: the loopback port the CLI is configured with.
      cli: whose configuration and environment.
    """
    async with bridge_socket(generate, owner, directory):
        template = f"home-{port}"
        write_home_template(directory / template, cli, port)
        shutil.copyfile(FORWARDER, directory / FORWARDER.name)
        os.chmod(directory / FORWARDER.name, 0o644)
        home = f"/tmp/vgb-{cli.harness}-{port}"  # the CLI's config and state, fresh per run, off the workspace
        env = cli.env | {"HOME": home} | ({"PI_CODING_AGENT_DIR": f"{home}/agent"} if cli is PI else {})
        command = ["python3", f"{ENDPOINT_INSIDE}/{FORWARDER.name}", str(port), f"{ENDPOINT_INSIDE}/{SOCKET_NAME}",
                   f"{ENDPOINT_INSIDE}/{template}", "--", *argv]
        return await box.exec(command, cwd=cwd, env=env)
