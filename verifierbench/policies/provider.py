"""`--model verifierbench/<policy>`: model-free policies as an Inspect model provider.

Each policy plays the generation agent through the real harness, offline: with tools it reads the
task file with the harness's shell tool, writes verify.py with its file-writing tool (or the shell), runs it
once on the example candidate, calls `run_public` once where offered, and calls `submit` (the CLI harnesses,
which have none, end on a reply without a tool call). It speaks each harness's tool vocabulary (VOCABULARIES:
the default harness, Claude Code, Codex CLI, Gemini CLI, Pi, OpenClaw). Without tools (single_reply) it answers with one
code block.
Policies: always_accept, always_reject, random (seeded: `-M seed=N`), heuristic.

Set `VERIFIERBENCH_POLICY_TRACE=FILE` to append one line per generate call (sample id and step):
tests use it to prove a resumed run does not redo finished samples.
"""

from __future__ import annotations

import base64
import json
import os
import re
import zlib
from dataclasses import dataclass
from typing import Any, Callable

from inspect_ai.model import (ChatMessage, ChatMessageAssistant, ChatMessageTool, ChatMessageUser, GenerateConfig, ModelAPI,
                              ModelOutput, ModelUsage, modelapi)
from inspect_ai.tool import ToolChoice, ToolInfo

from verifierbench.inspect_api.user_errors import InspectUserError
from verifierbench.harness.prompt import TASK_DIR, VERIFIER_PATH
from verifierbench.harness.sample_store import current_public_format, current_sample_id
from verifierbench.policies.verifiers import POLICIES, READ_MARKER, READ_TASK, verifier_source

TASK_FILE = f"{TASK_DIR}/task.json"
EXAMPLE = f"{TASK_DIR}/example_candidate.json"
TRACE_ENV = "VERIFIERBENCH_POLICY_TRACE"
MAX_READS = 24  # chunks of task.json read at most (READ_CHUNK each); past it the policy goes on with what it has
CHUNK_RESULT = re.compile(READ_MARKER + r" (\d+) (\d+) ([A-Za-z0-9+/=]*)")


@modelapi(name="verifierbench")
def verifierbench_policies() -> type[ModelAPI]:
    return PolicyModel


class PolicyModel(ModelAPI):
    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None,
                 config: GenerateConfig | None = None, **model_args: Any) -> None:
        super().__init__(model_name, base_url, api_key, [], config or GenerateConfig())
        if model_name not in POLICIES:
            raise InspectUserError(f"unknown policy verifierbench/{model_name} (choose from {', '.join(POLICIES)})")
        self.policy = model_name
        self.seed = int(model_args.get("seed", 0))

    def max_connections(self) -> int:
        return 32

    async def generate(self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice,
                       config: GenerateConfig) -> ModelOutput:
        names = {t.name for t in tools}
        step = sum(isinstance(m, ChatMessageAssistant) for m in input)
        _trace(input, step)
        if not names:
            return self._reply(input)
        words = vocabulary_of(names)
        if words is None:  # a tool set this policy cannot work with: say so in the transcript, deliver nothing
            return self._output(ModelOutput.from_content(self.model_name, f"No shell among the tools: {', '.join(sorted(names))}."))
        # First the task, read in chunks (one call each) until whole; then `step` counts the calls after the reads.
        reads, offset = _reading(input)
        if offset is not None and reads < MAX_READS:
            return self._call(words.shell, words.shell_arguments(READ_TASK.format(path=TASK_FILE, offset=offset)), "Reading the task.")
        step -= reads - 1
        if step == 1:
            source = verifier_source(self.policy, _task_from(input), self.seed)
            if words.write in names:
                return self._call(words.write, words.write_arguments(VERIFIER_PATH, source), "Writing the verifier.")
            command = f"mkdir -p $(dirname {VERIFIER_PATH}) && cat > {VERIFIER_PATH} <<'VGB_EOF'\n{source}VGB_EOF"
            return self._call(words.shell, words.shell_arguments(command), "Writing the verifier.")
        if step == 2:
            test = f"python3 {VERIFIER_PATH} {EXAMPLE} /tmp/result.json && cat /tmp/result.json"
            return self._call(words.shell, words.shell_arguments(test), "Trying it on the example candidate.")
        run_public_tool = next((n for n in sorted(names) if n == "run_public" or n.endswith("__run_public")), None)
        public = current_public_format()
        request = public.public_run.empty_request() if public is not None and public.public_run is not None else None
        looks_at_environment = request is not None
        if step == 3 and request is not None:  # state and code tasks: look at the public environment once (one budgeted call)
            if run_public_tool:
                return self._call(run_public_tool, {"request": json.dumps(request)}, "Looking at the initial environment.")
            # No run_public tool (mini-swe-agent): the same service through vgb_env.
            code = f"import json, vgb_env; print(json.dumps(vgb_env.run_public(**{request!r}))[:2000])"
            return self._call(words.shell, words.shell_arguments(f'python3 -c "{code}"'), "Looking at the initial environment.")
        if "submit" in names:
            return self._call("submit", {"answer": f"{self.policy} verifier written to {VERIFIER_PATH}"}, "Done.")
        if words.finish_command and step == (4 if looks_at_environment else 3):
            return self._call(words.shell, words.shell_arguments(words.finish_command), "Done.")
        return self._output(ModelOutput.from_content(self.model_name, f"Done: {self.policy} verifier written to {VERIFIER_PATH}."))

    def _reply(self, input: list[ChatMessage]) -> ModelOutput:
        source = verifier_source(self.policy, _task_from_prompt(input), self.seed)
        return self._output(ModelOutput.from_content(self.model_name, f"```python\n{source}```\n"))

    def _call(self, tool: str, arguments: dict[str, Any], text: str) -> ModelOutput:
        return self._output(ModelOutput.for_tool_call(self.model_name, tool, arguments, content=text))

    @staticmethod
    def _output(output: ModelOutput) -> ModelOutput:
        # Usage set on every output: Inspect never needs a tokenizer (no download) to count.
        text = output.completion or ""
        output.usage = ModelUsage(input_tokens=0, output_tokens=len(text) // 4 + 1, total_tokens=len(text) // 4 + 1)
        return output


@dataclass(frozen=True)
class Vocabulary:
    """How one harness names its shell and file-writing tools, and their arguments."""

    shell: str
    shell_arguments: Callable[[str], dict[str, Any]]
    write: str
    write_arguments: Callable[[str, str], dict[str, Any]]
    finish_command: str = ""  # run in the shell to end, where the harness has no submit tool


# Each harness's own tool names: verifierbench's default harness and mini-swe-agent (`bash`; mini-swe-agent has
# only that and ends on its completion command), Claude Code, Codex CLI, Gemini CLI, Pi, OpenClaw. The other CLIs have no submit
# tool either: they end when the model answers without a tool call.
VOCABULARIES = (
    Vocabulary("bash", lambda command: {"command": command}, "write_file", lambda path, text: {"path": path, "content": text},
               finish_command="echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"),
    Vocabulary("Bash", lambda command: {"command": command, "description": "Run a command"},
               "Write", lambda path, text: {"file_path": path, "content": text}),
    Vocabulary("exec_command", lambda command: {"cmd": command, "max_output_tokens": 100_000}, "", lambda path, text: {}),
    Vocabulary("shell", lambda command: {"command": ["bash", "-lc", command]}, "", lambda path, text: {}),
    Vocabulary("run_shell_command", lambda command: {"command": command},
               "write_file", lambda path, text: {"file_path": path, "content": text}),
    Vocabulary("bash", lambda command: {"command": command}, "write", lambda path, text: {"path": path, "content": text}),  # Pi
    Vocabulary("exec", lambda command: {"command": command}, "write", lambda path, text: {"path": path, "content": text}),  # OpenClaw
)


def vocabulary_of(names: set[str]) -> Vocabulary | None:
    """The vocabulary whose shell tool the harness offers (None: no known shell).

    Args:
      names: The tool names of the model request.
    """
    # First the harness offering both its shell and its file-writing tool (Pi's bash has the default harness's name).
    both = (words for words in VOCABULARIES if words.shell in names and words.write in names)
    return next(both, None) or next((words for words in VOCABULARIES if words.shell in names), None)


def _reading(input: list[ChatMessage]) -> tuple[int, int | None]:
    """How many read calls the policy made, and the offset of the next chunk of the task to read (None: it is whole,
    or the last read gave no chunk, e.g. an error, and reading stops there).

    Args:
      input: The conversation so far.
    """
    reads = sum(isinstance(m, ChatMessageAssistant) and any(READ_MARKER in json.dumps(c.arguments) for c in m.tool_calls or [])
                for m in input)
    if reads == 0:
        return 0, 0
    last = next((m for m in reversed(input) if isinstance(m, ChatMessageTool)), None)
    if last is None or not _chunk_results(last):
        return reads, None
    chunks, total = _chunks(input)
    have = _contiguous(chunks)
    return reads, (len(have) if len(have) < total else None)


def _chunks(input: list[ChatMessage]) -> tuple[dict[int, str], int]:
    """The chunks of the encoded task read so far, by offset, and the encoded task's length."""
    chunks: dict[int, str] = {}
    total = 0
    for message in input:
        if isinstance(message, ChatMessageTool):
            for match in _chunk_results(message):
                chunks[int(match.group(1))] = match.group(3)
                total = int(match.group(2))
    return chunks, total


def _chunk_results(message: ChatMessageTool) -> list[re.Match[str]]:
    """The task chunks a tool result holds (a harness that JSON-encodes the output may escape a slash)."""
    return list(CHUNK_RESULT.finditer(message.text.replace("\\/", "/")))


def _contiguous(chunks: dict[int, str]) -> str:
    text = ""
    while chunks.get(len(text)):
        text += chunks[len(text)]
    return text


def _task_from(input: list[ChatMessage]) -> dict[str, Any]:
    """The task the policy read in the sandbox (its chunks put together), else what the prompt says."""
    chunks, total = _chunks(input)
    encoded = _contiguous(chunks)
    if encoded and len(encoded) == total:
        try:
            data = json.loads(zlib.decompress(base64.b64decode(encoded)))
        except (ValueError, zlib.error):
            data = None
        if isinstance(data, dict) and "tools" in data and "instruction" in data:
            return data
    return _task_from_prompt(input)


def _task_from_prompt(input: list[ChatMessage]) -> dict[str, Any]:
    """Without tools, the tool definitions are read from the prompt's JSON block."""
    prompt = next((m.text for m in input if isinstance(m, ChatMessageUser)), "")
    marker = "Tools available to the assistant (as given to it):"
    tools: Any = []
    if marker in prompt:
        try:
            tools, _ = json.JSONDecoder().raw_decode(prompt[prompt.index(marker) + len(marker):].lstrip())
        except json.JSONDecodeError:
            tools = []
    return {"instruction": prompt, "tools": tools}


def _trace(input: list[ChatMessage], step: int) -> None:
    path = os.environ.get(TRACE_ENV)
    if not path:
        return
    sample_id = current_sample_id()
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps({"sample_id": sample_id, "step": step, "pid": os.getpid()}) + "\n")

