"""OpenClaw, Codex, Gemini CLI and mini-swe-agent in the no-Docker vgb sandbox (harness/openclaw_vgb.py, codex_vgb.py,
gemini_vgb.py, mini_vgb.py): the toolchains' checks, and a whole eval of each on a tool-call task through the
project's endpoint (chat completions for OpenClaw and mini-swe-agent, the streamed Responses API for Codex, streamed
generateContent for Gemini CLI), with the default harness's decisions. The toolchains are the cache
scripts/harness-clis.sh fills (or each module's `fetch`)."""

from __future__ import annotations

import shutil

import pytest

from tests.conftest import skip_unless_required
from tests.harness.test_harnesses import ALL_HARNESSES
from tests.harness.inspect_cli import eval_log, inspect
from verifierbench.harness import codex_vgb, gemini_vgb, mini_vgb, openclaw_vgb
from verifierbench.harness.bridged_clis import CliMissing

MODULES = {"openclaw": openclaw_vgb, "codex_cli": codex_vgb, "gemini_cli": gemini_vgb, "mini_swe_agent": mini_vgb}
SHELL_TOOLS = {"openclaw": "exec", "codex_cli": "exec_command", "gemini_cli": "run_shell_command",  # the policy calls it
               "mini_swe_agent": "bash"}
WEB_TOOLS = {"web_search", "web_fetch", "browser", "google_web_search"}
# CI runs one whole eval here: Codex, whose Responses route and checked binaries no other CI test reaches (Pi and Claude
# Code prove the chat-completions and Anthropic routes in tests/harness/test_pi_vgb.py and test_claude_vgb.py); the
# route tests in test_model_endpoint.py cover Gemini's. VERIFIERBENCH_ALL_HARNESSES=1 runs all four.
CI_EVALS = ("codex_cli",)


@pytest.fixture(scope="module", params=sorted(MODULES))
def harness(request) -> str:
    if request.param not in CI_EVALS and not ALL_HARNESSES:
        skip_unless_required("all-harnesses", f"{request.param} in vgb: set VERIFIERBENCH_ALL_HARNESSES=1 to run every harness")
    module = MODULES[request.param]
    try:
        module.toolchain()
    except CliMissing as missing:
        if shutil.which("npm") is None:
            skip_unless_required("packages", f"{missing} (and npm is not here to fetch it)")
        module.fetch()
    return str(request.param)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_a_missing_toolchain_is_one_line_naming_the_fetch_command(name, tmp_path, monkeypatch):
    module = MODULES[name]
    monkeypatch.setenv("VERIFIERBENCH_HARNESS_CACHE", str(tmp_path))
    module.toolchain.cache_clear()
    try:
        with pytest.raises(CliMissing, match=f"harness {name} in the vgb sandbox: no .* in {tmp_path}.*"
                                             f"`{module.FETCH_COMMAND}`") as raised:
            module.toolchain()
    finally:
        module.toolchain.cache_clear()
    assert "\n" not in str(raised.value)


@pytest.mark.timeout(900)
@pytest.mark.usefixtures("bwrap_available")
def test_the_cli_in_vgb_delivers_a_verifier_on_a_tool_call_task_with_the_default_harness_decisions(harness, tmp_path,
                                                                                                   bfcl_suite):
    logs = {}
    for name in ("default", harness):
        result = inspect("eval", "verifierbench/verifierbench", "--model", "verifierbench/heuristic", "-T",
                         f"suite={bfcl_suite}", "--limit", "1", "-T", f"harness={name}", "--log-dir", str(tmp_path / name))
        assert result.returncode == 0, result.stderr[-3000:]
        logs[name] = eval_log(tmp_path / name)
    log = logs[harness]
    assert log.status == "success", log.error
    assert log.eval.metadata["harness_transport"] == "unix-socket"
    (sample,) = log.samples
    assert not sample.error, sample.error
    called = [call.function for e in sample.events if e.event == "model" for call in e.output.message.tool_calls or []]
    assert SHELL_TOOLS[harness] in called, called  # the CLI's own shell tool, through the endpoint
    offered = {tool.name for e in sample.events if e.event == "model" for tool in e.tools}
    assert not offered & WEB_TOOLS, offered
    decisions = {name: [case["decisions"] for case in l.samples[0].scores["hidden_cases"].metadata["cases"]]
                 for name, l in logs.items()}
    assert decisions[harness] == decisions["default"] and decisions["default"]
