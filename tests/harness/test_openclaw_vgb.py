"""OpenClaw in the no-Docker vgb sandbox (harness/openclaw_vgb.py): the toolchain's checks and a whole eval on a
tool-call task through the project's endpoint, with the default harness's decisions. The toolchain is the cache
scripts/harness-clis.sh fills (or `python -m verifierbench.harness.openclaw_vgb fetch`)."""

from __future__ import annotations

import shutil

import pytest

from tests.conftest import skip_unless_required
from tests.harness.inspect_cli import eval_log, inspect
from verifierbench.harness import openclaw_vgb
from verifierbench.harness.bridged_clis import CliMissing


@pytest.fixture(scope="module")
def toolchain() -> openclaw_vgb.Toolchain:
    try:
        return openclaw_vgb.toolchain()
    except CliMissing as missing:
        if shutil.which("npm") is None:
            skip_unless_required("packages", f"{missing} (and npm is not here to fetch it)")
    openclaw_vgb.fetch()
    return openclaw_vgb.toolchain()


def test_a_missing_toolchain_is_one_line_naming_the_fetch_command(tmp_path, monkeypatch):
    monkeypatch.setenv("VERIFIERBENCH_HARNESS_CACHE", str(tmp_path))
    openclaw_vgb.toolchain.cache_clear()
    try:
        with pytest.raises(CliMissing, match=f"harness openclaw in the vgb sandbox: no node in {tmp_path}.*"
                                             f"`{openclaw_vgb.FETCH_COMMAND}`") as raised:
            openclaw_vgb.toolchain()
    finally:
        openclaw_vgb.toolchain.cache_clear()
    assert "\n" not in str(raised.value)


@pytest.mark.timeout(900)
@pytest.mark.usefixtures("toolchain", "bwrap_available")
def test_openclaw_in_vgb_delivers_a_verifier_on_a_tool_call_task_with_the_default_harness_decisions(tmp_path, bfcl_suite):
    logs = {}
    for harness in ("default", "openclaw"):
        result = inspect("eval", "verifierbench/verifierbench", "--model", "verifierbench/heuristic", "-T",
                         f"suite={bfcl_suite}", "--limit", "1", "-T", f"harness={harness}", "--log-dir", str(tmp_path / harness))
        assert result.returncode == 0, result.stderr[-3000:]
        logs[harness] = eval_log(tmp_path / harness)
    log = logs["openclaw"]
    assert log.status == "success", log.error
    assert log.eval.metadata["harness_transport"] == "unix-socket" and log.eval.metadata["harness_version"] == "2026.6.34"
    (sample,) = log.samples
    assert not sample.error, sample.error
    called = [call.function for e in sample.events if e.event == "model" for call in e.output.message.tool_calls or []]
    assert "exec" in called, called  # OpenClaw's own shell tool, through the endpoint
    offered = {tool.name for e in sample.events if e.event == "model" for tool in e.tools}
    assert not offered & {"web_search", "web_fetch", "browser"}, offered
    decisions = {name: [case["decisions"] for case in l.samples[0].scores["hidden_cases"].metadata["cases"]]
                 for name, l in logs.items()}
    assert decisions["openclaw"] == decisions["default"] and decisions["default"]
