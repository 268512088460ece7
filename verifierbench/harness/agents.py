"""The generation harnesses' solvers, selected with `-T harness=` (each registered in harness/built_in.py).

- `default`: Inspect's ReAct agent with bash, python, file editing, (where the task has a public
  environment) `run_public` and `reset`, and a submit step. The task's message limit bounds its loop
  (a model that never submits is urged to continue until a limit ends the sample).
- `single_reply`: one model reply, no tools; the harness writes the reply's code block to the
  verifier path. A cheap baseline.

Both record in the store (GENERATION_END) why generation ended without a verifier when they can tell
(no code block, unclosed fence, wrong language, no submit, the model's length stop, a rejected model
request); the scorer puts it in the score metadata.
- `claude_code`, `codex_cli`, `gemini_cli`, `mini_swe_agent`: inspect-swe's agents (optional extra
  `verifierbench[harnesses]`). They run their CLI inside the sandbox, so they need a sandbox with
  the CLI installed (see verifierbench/sandboxes/README.md). Claude Code also runs in the no-Docker `vgb` sandbox,
  from the same cached binary, on the project's own model endpoint (harness/claude_vgb.py), and under docker on
  that endpoint by default (harness/endpoint_docker.py; inspect-swe's agent on `-T transport=inspect-sandbox-bridge`).
- `pi`, `openclaw`: the paper's common harness and OpenClaw (harness/bridged_clis.py), on the same image; pi also
  runs in the vgb sandbox, from the same cached toolchain (harness/pi_vgb.py). Under docker either reaches the model
  through Inspect's sandbox bridge or the project's endpoint (harness/endpoint_docker.py), as `-T transport` says.

A CLI missing from the image fails the sample with one line naming the command that builds it; a CLI that exits
with an error ends generation with its reason and stderr tail recorded (GENERATION_END): U when no verifier was
written, as for the default harness. With VERIFIERBENCH_TRACE_CONNECTIONS=1 every CLI runs under strace and the
sample's store keeps each address it tried to reach (harness/connection_trace.py).
"""

from __future__ import annotations

import importlib
import re

from inspect_ai.agent import AgentPrompt, AgentSubmit, as_solver, react
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import bash, python
from inspect_ai.util import sandbox, store

from verifierbench.harness.bridged_clis import BRIDGED_CLIS, BridgedCli, CliMissing, bridged_cli_agent, in_vgb, missing_cli_message
from verifierbench.harness.prompt import VERIFIER_PATH
from verifierbench.harness.transports import SANDBOX_BRIDGE, TRANSPORT_KEY, UNIX_SOCKET
from verifierbench.harness.tools import SUBMITTED, replace_in_file, reset, run_public, submit, write_file
from verifierbench.sources.formats.registry import sample_public_format

# The harnesses themselves, their versions and where they run are registered in harness/built_in.py.
# Messages per sample for the default harness. Not a paper budget: the paper caps time, tokens per
# reply and run_public only (App. E), but without a cap a model that never calls submit is urged on
# until the time limit. 400 messages is about 200 model turns, far above what a submitting agent uses.
MESSAGE_LIMIT = 400
COMMAND_TIMEOUT_S = 300  # per bash/python call (a code task's budget when longer); the task's time limit bounds the whole generation
GENERATION_END = "verifierbench:generation_end"  # store: why the harness ended without delivering, in one line
REJECTED_REQUEST_STATUSES = (400, 413)  # a request the server refuses as sent (context overflow): no retry helps
MAX_NOTE_CHARS = 300  # how much of a model's error text a recorded reason keeps

SYSTEM = ("You are an expert engineer writing verifiers for agent tasks. Work in the sandbox with the tools you have; "
          "test your verifier on candidates you construct yourself, then submit.")


@solver
def default_harness(run_public_budget: int = 20) -> Solver:
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        public = sample_public_format(state.metadata)
        timeout = command_timeout(state.metadata)
        tools = [bash(timeout=timeout), python(timeout=timeout), write_file(), replace_in_file()]
        if public is not None:
            tools += [run_public(public.name, run_public_budget), reset(public.name)]
        agent = react(
            prompt=AgentPrompt(instructions=SYSTEM),
            tools=tools,
            submit=AgentSubmit(tool=submit(),
                               description="Submit when the verifier is written to " + VERIFIER_PATH + ". Give a one-line summary."),
        )
        try:
            state = await as_solver(agent)(state, generate)
        except Exception as exc:  # noqa: BLE001 - only a refused model request is handled; the rest re-raise
            if not record_rejected_request(exc):
                raise
            return state
        if not store().get(SUBMITTED, False):
            store().set(GENERATION_END, stop_note(state) or "the agent stopped without calling submit")
        return state

    return solve


def command_timeout(metadata: dict) -> int:
    """Seconds one bash/python call may take: enough to run the verifier once on a candidate, as the scorer will.

    Args:
        metadata: the sample's metadata (`case_timeout_s` on code tasks: the task's budget per verifier run).
    """
    budget = metadata.get("case_timeout_s")
    return max(COMMAND_TIMEOUT_S, int(budget)) if isinstance(budget, (int, float)) and budget > 0 else COMMAND_TIMEOUT_S


@solver
def single_reply() -> Solver:
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        try:
            state = await generate(state, tool_calls="none")
        except Exception as exc:  # noqa: BLE001 - as in default_harness
            if not record_rejected_request(exc):
                raise
            return state
        code, why = read_reply(state.output.completion if state.output else "")
        if code is not None:
            await sandbox().write_file(VERIFIER_PATH, code)
        else:  # a context overflow's "reply" is the server's error text: the stop alone explains it
            note = stop_note(state)
            length_stop = state.output is not None and state.output.stop_reason == "model_length"
            store().set(GENERATION_END, note if length_stop else why + (f"; {note}" if note else ""))
        return state

    return solve


def extract_code(reply: str) -> str | None:
    """The last ```python (or bare ```) block of a reply; None when there is none."""
    return read_reply(reply)[0]


def read_reply(reply: str) -> tuple[str | None, str]:
    """The last closed ```python (or ```py, or bare ```) block of a reply, or None and why there is none.

    Fences are read line by line, so a block's closing fence never opens the next one."""
    blocks: list[tuple[str, str]] = []  # (language, code)
    language: str | None = None
    lines: list[str] = []
    for line in reply.splitlines(keepends=True):
        if language is None:
            opening = re.match(r"[ \t]*```[ \t]*([\w+-]*)[ \t]*$", line)
            if opening:
                language, lines = opening.group(1).lower(), []
            continue
        closing = re.match(r"(.*?)```[ \t]*$", line, flags=re.DOTALL)  # also "code```" on the last line
        if closing is None:
            lines.append(line)
            continue
        blocks.append((language, "".join(lines) + closing.group(1)))
        language = None
    python = [code for lang, code in blocks if lang in ("python", "py", "")]
    if python:
        return python[-1], ""
    if language is not None:
        return None, f"unclosed code fence (```{language} opened, never closed)"
    if not reply.strip():
        return None, "empty reply"
    if blocks:
        return None, f"no python code block (closed blocks in: {', '.join(sorted({lang for lang, _ in blocks}))})"
    return None, "no code block in the reply"


def stop_note(state: TaskState) -> str:
    """Why the model's last reply stopped, when that explains an early end (length, refusal); else ''."""
    output = state.output
    if output is None:
        return ""
    text = " ".join((output.error or output.completion or "").split())[:MAX_NOTE_CHARS]
    if output.stop_reason == "model_length":
        return "the model stopped at its length or context limit (model_length)" + (f": {text}" if text else "")
    if output.stop_reason == "max_tokens":
        return "the reply was cut at max_tokens"
    if output.stop_reason == "content_filter":
        return "the model refused (content_filter)" + (f": {text}" if text else "")
    return ""


def record_rejected_request(exc: Exception) -> bool:
    """A model request the server rejected as sent (HTTP 400/413, e.g. a context overflow the provider
    does not map to model_length) ends the sample cleanly with the reason; True when recorded."""
    status = getattr(exc, "status_code", None)
    if status not in REJECTED_REQUEST_STATUSES:
        return False
    message = " ".join(error_text(exc).split())[:MAX_NOTE_CHARS]
    store().set(GENERATION_END, f"model error: HTTP {status}: {message}")
    return True


def error_text(exc: Exception) -> str:
    """The server's own error message (the OpenAI SDK keeps its error object as `body`); the
    exception's text is the fallback, its last line (Inspect may lead it with the whole request)."""
    body = getattr(exc, "body", None)
    error = body.get("error", body) if isinstance(body, dict) else None
    if isinstance(error, dict) and error.get("message"):
        return str(error["message"])
    lines = str(exc).strip().splitlines()
    return lines[-1] if lines else type(exc).__name__


# No web access for any harness: the sandbox has no network, and inspect-swe would otherwise serve web search
# from the harness process.
NO_WEB: dict[str, dict] = {"claude_code": {"disallowed_tools": ["WebSearch", "WebFetch"]},
                           "codex_cli": {"web_search": "disabled"}, "gemini_cli": {"web_search": False}}


# mini-swe-agent's litellm would route "<provider>/inspect" by the eval model's provider name, which it may not
# know (verifierbench/heuristic, a local server): the bridge speaks the OpenAI API whatever the model.
# It stops on a model litellm has no price for unless told to ignore that, and litellm would try to fetch its price
# list from the network.
# Codex syncs its plugin marketplaces at start-up (DNS lookups of chatgpt.com and api.github.com, seen by the
# connection check, harness/connection_trace.py) unless its plugins feature is off.
EXTRA_OPTIONS: dict[str, dict] = {"mini_swe_agent": {"env": {
    "MSWEA_MODEL_NAME": "openai/inspect", "MSWEA_COST_TRACKING": "ignore_errors", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}},
    "codex_cli": {"config_overrides": {"features.plugins": "false"}}}


@solver
def swe_harness(name: str, run_public_budget: int = 20, version: str = "sandbox") -> Solver:
    """An inspect-swe agent running its CLI in the sandbox (the image of scripts/harness-clis.sh): never a download.

    State and code tasks get `run_public` and `reset` as the CLI's own tools, bridged to the host-side service.

    Args:
      name: The name of inspect-swe's agent (claude_code, codex_cli, gemini_cli, mini_swe_agent).
      run_public_budget: The task's run_public budget (enforced on the host).
      version: inspect-swe's `version` option: "sandbox" (the CLI on the sandbox's $PATH), or the pinned version for a
        CLI it looks for elsewhere (Gemini CLI: without one it asks GitHub for the latest).
    """
    try:
        import inspect_swe
    except ImportError:
        raise ImportError(f"harness {name} needs inspect-swe: pip install 'verifierbench[harnesses]'") from None
    from inspect_ai.agent import BridgedToolsSpec

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        public = sample_public_format(state.metadata)
        bridged = [BridgedToolsSpec(name="vgb", tools=[run_public(public.name, run_public_budget), reset(public.name)])] \
            if public is not None else []
        options: dict = {"version": version, "cwd": "/workspace", "system_prompt": SYSTEM,
                         **NO_WEB.get(name, {}), **EXTRA_OPTIONS.get(name, {})}
        if name != "mini_swe_agent":  # it takes no bridged tools: its code reaches run_public through vgb_env
            options["bridged_tools"] = bridged
        agent = getattr(inspect_swe, name)(**options)
        try:
            return await as_solver(agent)(state, generate)
        except RuntimeError as exc:
            if MISSING_CLI.search(str(exc)):
                raise CliMissing(missing_cli_message(name, str(exc).strip().splitlines()[0])) from None
            if not str(exc).startswith(CLI_FAILURE_PREFIXES):
                raise
            # The CLI ran and failed (inspect-swe puts its exit status and output in the message): U, not an error.
            store().set(GENERATION_END, " ".join(str(exc).split())[-1500:])
            return state

    return solve


# inspect-swe's words for a CLI it cannot find in the sandbox (with version="sandbox" it never downloads one), and
# for a CLI that ran and exited with an error.
MISSING_CLI = re.compile(r"unable to locate|not (found|available|installed) in (the )?sandbox", re.IGNORECASE)
CLI_FAILURE_PREFIXES = ("Error executing",)


@solver
def bridged_cli_harness(name: str) -> Solver:
    """Pi or OpenClaw in the sandbox (harness/bridged_clis.py); a failed run is recorded for the scorer, not raised.

    Args:
      name: A key of BRIDGED_CLIS.
    """
    cli = BRIDGED_CLIS[name]
    polled = bridged_cli_agent(cli, system_prompt=SYSTEM, generation_end_key=GENERATION_END)
    return vgb_or(name, by_transport({UNIX_SOCKET: on_endpoint(cli), SANDBOX_BRIDGE: as_solver(polled)}))


def on_endpoint(cli: BridgedCli) -> Solver:
    """`cli` in the sample's container on the project's endpoint (harness/endpoint_docker.py); a failed run is recorded
    for the scorer."""
    from verifierbench.harness.endpoint_docker import endpoint_cli_agent

    return as_solver(endpoint_cli_agent(cli, system_prompt=SYSTEM, generation_end_key=GENERATION_END))


def by_transport(solvers: dict[str, Solver]) -> Solver:
    """The solver of the sample's transport (the store's, record_sample's), in a container sandbox."""
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        transport = store().get(TRANSPORT_KEY, SANDBOX_BRIDGE)
        if transport not in solvers:
            raise RuntimeError(f"no solver for the transport {transport!r} (only {', '.join(solvers)})")
        return await solvers[transport](state, generate)

    return solve


# Each CLI's agent in the vgb sandbox (module, factory), imported when a sample runs it.
VGB_AGENTS = {name: (f"verifierbench.harness.{module}", f"{module}_agent") for name, module in (
    ("pi", "pi_vgb"), ("claude_code", "claude_vgb"), ("codex_cli", "codex_vgb"), ("gemini_cli", "gemini_vgb"),
    ("openclaw", "openclaw_vgb"), ("mini_swe_agent", "mini_vgb"))}


def vgb_or(name: str, elsewhere: Solver) -> Solver:
    """In the vgb sandbox, the CLI `name` through the project's endpoint (its VGB_AGENTS module); in any other
    sandbox, `elsewhere`."""
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        if not in_vgb(sandbox()):
            return await elsewhere(state, generate)
        module, factory = VGB_AGENTS[name]
        agent = getattr(importlib.import_module(module), factory)(system_prompt=SYSTEM, generation_end_key=GENERATION_END)
        return await as_solver(agent)(state, generate)

    return solve
