"""`-T harness=mini_swe_agent` in the no-Docker vgb sandbox: mini-swe-agent 2.4.6 on the project's endpoint
(harness/model_endpoint.py, OpenAI chat completions through litellm), with the same forwarder, socket and public
Inspect bridge as pi (harness/pi_vgb.py).

It runs on the sandbox's own Python (the host's /usr, which every vgb command has: CPython 3.11, as the harness
image's), from the wheels scripts/harness-clis.sh caches, installed once into a directory beside them by pip run from
its own wheel, offline (`python -m verifierbench.harness.mini_vgb fetch`). The wheels are checked by a digest of their
directory; the installed directory must be a trusted store's (only its owner can write it). It is bound read-only and
put on PYTHONPATH. mini-swe-agent runs as inspect-swe runs it under Docker: `--yolo --exit-immediately`, litellm told
"openai/inspect", cost tracking errors ignored and its price list read locally, the harness's instructions leading
the task. `run_public` and `reset` are reached from its shell through `vgb_env`, as under Docker.
"""

from __future__ import annotations

import functools
import subprocess
from pathlib import Path

from inspect_ai.agent import Agent, agent

from verifierbench.executor.bwrap import Bind
from verifierbench.executor.layout import LIBRARY_ROOT
from verifierbench.harness.bridged_clis import BridgedCli, CliMissing
from verifierbench.harness.pi_vgb import cache_root, cli_in_vgb, fetched_into, tree_digest

VERSION = "2.4.6"  # scripts/harness-clis.sh MINI_SWE_AGENT
WHEELS_SHA256 = "b7fce0b5a7cd7fa5324600dbac7748276b6a6477fd56ac59bb3d0bf1caad8e89"  # pi_vgb.tree_digest of the wheels
FETCH_COMMAND = "python -m verifierbench.harness.mini_vgb fetch"
PYTHON = "/usr/bin/python3"  # the sandbox's (the host's /usr)
INSIDE = "/opt/vgb-mini/site"

MINI_SWE_AGENT = BridgedCli(
    harness="mini_swe_agent", version=VERSION, executable="mini",
    env={"MSWEA_CONFIGURED": "true", "MSWEA_MODEL_NAME": "openai/inspect", "OPENAI_API_KEY": "bridge",
         # the sandbox's own library (vgb_env) stays importable from its shell, where run_public and reset are reached
         "MSWEA_COST_TRACKING": "ignore_errors", "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONPATH": f"{INSIDE}:{LIBRARY_ROOT}",
         "PATH": f"{INSIDE}/bin:/usr/local/bin:/usr/bin:/bin"},
    config=lambda port: {},
    command=lambda home, system, prompt: ["python3", f"{INSIDE}/bin/mini", "--yolo", "--exit-immediately", "--task",
                                          f"System instructions:\n{system}\n\nTask:\n{prompt}"],
    endpoint_env="OPENAI_BASE_URL",
)


def wheels_path(root: Path) -> Path:
    return root / "packages" / f"mini-swe-agent-{VERSION}"


def site_path(root: Path) -> Path:
    return root / "packages" / f"mini-swe-agent-{VERSION}-site"


def missing(what: str) -> CliMissing:
    return CliMissing(f"harness mini_swe_agent in the vgb sandbox: {what}; install mini-swe-agent {VERSION} with "
                      f"`{FETCH_COMMAND}`")


@functools.cache
def toolchain() -> str:
    """The checked install's directory (once per process), or CliMissing in one line."""
    root = cache_root()
    wheels, site = wheels_path(root), site_path(root)
    if not (site / "bin" / "mini").is_file() or not wheels.is_dir():
        raise missing(f"no mini-swe-agent installed in {root}")
    if tree_digest(wheels, missing) != WHEELS_SHA256:
        raise missing(f"{wheels} are not the pinned wheels of mini-swe-agent {VERSION} (their digest differs)")
    tree_digest(site, missing)  # only its owner can write it
    return str(site)


def fetch() -> None:
    """Installs the cached wheels (scripts/harness-clis.sh build fetches them) beside them, offline."""
    root = cache_root()
    wheels, site = wheels_path(root), site_path(root)
    pips = sorted(wheels.glob("pip-*.whl"))
    if not pips:
        raise SystemExit(f"no mini-swe-agent wheels in {wheels}: fetch them with scripts/harness-clis.sh build")
    fetched_into(site, lambda partial: subprocess.run(
        [PYTHON, str(pips[-1] / "pip"), "install", "--quiet", "--root-user-action", "ignore", "--no-index", "--no-cache-dir",
         "--no-compile", "--find-links", str(wheels), "--target", str(partial), f"mini-swe-agent=={VERSION}"], check=True))
    toolchain.cache_clear()
    print(f"mini-swe-agent {VERSION} in {toolchain()}: checked")


@agent(name="mini_swe_agent_vgb")
def mini_vgb_agent(system_prompt: str, cwd: str = "/workspace", generation_end_key: str = "") -> Agent:
    """mini-swe-agent in the sample's vgb sandbox (no Docker), its model bridged to the eval's model.

    Args:
      system_prompt: The harness's instructions.
      cwd: The directory it works in.
      generation_end_key: The store key where a failed run's reason is recorded ("" raises instead).
    """
    return cli_in_vgb(MINI_SWE_AGENT, mounts, system_prompt, cwd, generation_end_key)


def mounts() -> tuple[tuple[Bind, ...], dict[str, str]]:
    """The checked install, bound read-only (the environment is MINI_SWE_AGENT's)."""
    return (Bind(toolchain(), INSIDE),), {}


if __name__ == "__main__":
    import sys

    if sys.argv[1:] != ["fetch"]:
        sys.exit(f"usage: {FETCH_COMMAND}")
    fetch()
