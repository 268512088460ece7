"""The built-in harnesses' records (harness/registry.py): the project's two, the four inspect-swe agents and the two
CLIs bridged by the project (harness/bridged_clis.py), in the order of the `-T harness` choices.

The CLI versions are the paper's (App. E); `package` is exactly what scripts/harness-clis.sh fetches, and
`image_paths` what sandboxes/cli_overlay.py copies onto a code task's image (tests/harness/test_harness_registry.py
holds both files to these records). Under k8s every CLI reaches the model through Inspect's polled sandbox bridge, and
under docker all but pi and Claude Code, which use the project's own unix socket there (harness/endpoint_docker.py;
`-T transport=inspect-sandbox-bridge` still selects Inspect's), as every CLI does in vgb
(harness/model_endpoint.py).
"""

from __future__ import annotations

from collections.abc import Callable

from inspect_ai.solver import Solver

from verifierbench.harness import claude_vgb, codex_vgb, gemini_vgb, mini_vgb, openclaw_vgb, pi_vgb
from verifierbench.harness.agents import (
    MESSAGE_LIMIT,
    bridged_cli_harness,
    by_transport,
    default_harness,
    on_endpoint,
    single_reply,
    swe_harness,
    vgb_or,
)
from verifierbench.harness.bridged_clis import OPENCLAW, PI, BridgedCli, in_container
from verifierbench.harness.connection_trace import traced_connections
from verifierbench.harness.prerequisites import harnesses_extra_problem, toolchain_problem
from verifierbench.harness.public_channel import with_public_channel
from verifierbench.harness.registry import IN_PROCESS, SANDBOX_BRIDGE, UNIX_SOCKET, Harness, register_harness

CONTAINERS = {"docker": SANDBOX_BRIDGE, "k8s": SANDBOX_BRIDGE}  # the CLIs' sandboxes and transport there
NODE = "/usr/local/bin/node"  # the image's node, which runs the JavaScript CLIs


def _default(run_public_budget: int) -> Solver:
    return with_public_channel(default_harness(run_public_budget))


def _single_reply(run_public_budget: int) -> Solver:
    return single_reply()


register_harness(Harness(name="default", display_name="Inspect ReAct agent", solver=_default,
                         transports={"vgb": IN_PROCESS, "docker": IN_PROCESS, "k8s": IN_PROCESS},
                         message_limit=MESSAGE_LIMIT))
register_harness(Harness(name="single_reply", display_name="one reply, no tools", solver=_single_reply,
                         transports={"vgb": IN_PROCESS, "docker": IN_PROCESS, "k8s": IN_PROCESS}, has_tools=False))


def _inspect_swe(name: str, display_name: str, version: str, executable: str, package: str, install: str,
                 image_paths: tuple[str, ...], runtime: str | None = None, pass_version: bool = False,
                 vgb_toolchain: Callable[[], object] | None = None, docker_cli: BridgedCli | None = None) -> Harness:
    """One of inspect-swe's agents, its CLI from the harness image; `pass_version`: inspect-swe is told the pinned
    version (Gemini CLI: else it asks GitHub for the latest), the others use the CLI on the sandbox's $PATH.
    `vgb_toolchain`: it also runs in the vgb sandbox, on the project's endpoint (harness/claude_vgb.py, codex_vgb.py,
    gemini_vgb.py, mini_vgb.py), with the toolchain this checks. `docker_cli`: under docker it runs as this CLI on the
    project's endpoint (harness/endpoint_docker.py), inspect-swe's agent on Inspect's bridge only when chosen."""
    in_vgb = vgb_toolchain is not None

    def make(run_public_budget: int) -> Solver:
        agent = swe_harness(name, run_public_budget, version=version if pass_version else "sandbox")
        if docker_cli is not None:
            agent = by_transport({UNIX_SOCKET: on_endpoint(docker_cli), SANDBOX_BRIDGE: agent})
        return with_public_channel(traced_connections(runtime or executable, vgb_or(name, agent) if in_vgb else agent))

    make.__qualname__ = make.__name__ = f"{name}_harness"
    transports = {"vgb": UNIX_SOCKET, **CONTAINERS} if in_vgb else dict(CONTAINERS)
    if docker_cli is not None:
        transports["docker"] = UNIX_SOCKET
    return Harness(name=name, display_name=display_name, solver=make, transports=transports, version=version,
                   executable=executable, runtime=runtime, package=package, install=install, image_paths=image_paths,
                   other_transports={"docker": (SANDBOX_BRIDGE,)} if docker_cli is not None else {},
                   problem=lambda sandbox: toolchain_problem(vgb_toolchain) if sandbox == "vgb" and vgb_toolchain
                   else harnesses_extra_problem(name))


def _bridged(cli: BridgedCli, display_name: str, package: str, install: str, image_paths: tuple[str, ...],
             transports: dict[str, str], other_transports: dict[str, tuple[str, ...]] | None = None) -> Harness:
    def make(run_public_budget: int) -> Solver:  # run_public is reached from the CLI's shell (vgb_env)
        return with_public_channel(traced_connections("node", bridged_cli_harness(cli.harness)))

    make.__qualname__ = make.__name__ = f"{cli.harness}_harness"
    # In vgb each needs its checked toolchain; under docker it is in the image.
    vgb_toolchain = pi_vgb.toolchain if cli is PI else openclaw_vgb.toolchain
    problem = (lambda sandbox: toolchain_problem(vgb_toolchain) if sandbox == "vgb" else None)
    return Harness(name=cli.harness, display_name=display_name, solver=make, transports=transports, version=cli.version,
                   executable=cli.executable, runtime="node", package=package, install=install, image_paths=image_paths,
                   problem=problem, other_transports=other_transports or {})


for _record in (
    _inspect_swe("claude_code", "Claude Code", "2.1.263", "claude", "@anthropic-ai/claude-code-linux-x64@2.1.263",
                 "npm pack (a native binary)", ("/usr/local/bin/claude",), vgb_toolchain=claude_vgb.toolchain,
                 docker_cli=in_container(claude_vgb.CLAUDE_CODE)),
    _inspect_swe("codex_cli", "Codex", "0.149.0", "codex", "@openai/codex@0.149.0-linux-x64",
                 "npm pack (static musl binaries)", ("/usr/local/bin/codex", "/usr/local/bin/codex-code-mode-host"),
                 vgb_toolchain=codex_vgb.toolchain),
    _inspect_swe("gemini_cli", "Gemini CLI", "0.60.0", "gemini", "@google/gemini-cli@0.60.0",
                 "npm install --ignore-scripts, linked where inspect-swe looks", ("/opt/gemini-cli", "/etc/gemini-cli", NODE),
                 runtime="node", pass_version=True, vgb_toolchain=gemini_vgb.toolchain),
    _inspect_swe("mini_swe_agent", "mini-swe", "2.4.6", "mini", "mini-swe-agent==2.4.6",
                 "pip download (CPython 3.11 wheels), installed by pip in the image",
                 ("/usr/local/bin/mini", "/usr/bin/python3.11", "/usr/lib/python3.11", "/usr/local/lib/python3.11"),
                 vgb_toolchain=mini_vgb.toolchain),
    _bridged(PI, "Pi", "@earendil-works/pi-coding-agent@0.84.2", "npm install --ignore-scripts",
             ("/usr/local/bin/pi", "/opt/pi", NODE), {"vgb": UNIX_SOCKET, **CONTAINERS, "docker": UNIX_SOCKET},
             {"docker": (SANDBOX_BRIDGE,)}),
    _bridged(OPENCLAW, "OpenClaw", "openclaw@2026.6.34", "npm install --ignore-scripts",
             ("/usr/local/bin/openclaw", "/opt/openclaw", NODE), {"vgb": UNIX_SOCKET, **CONTAINERS}),
):
    register_harness(_record)
