"""The harness registry (harness/registry.py, harness/built_in.py) is the one home of each harness's facts: the files
that cannot import it (the image build script, the docs, the code-task overlay) are held to it here, and the decisions
it drives are the ones the harnesses had before it."""

from __future__ import annotations

import re

import pytest

from tests.conftest import REPO_ROOT, load_script
from verifierbench.configurations import ALTERNATIVES, HARNESS_NAMES
from verifierbench.core.errors import UserError
from verifierbench.harness.registry import HARNESSES, IN_PROCESS, SANDBOX_BRIDGE, UNIX_SOCKET, Harness, get
from verifierbench.sandboxes.cli_overlay import CLI_PATHS
from verifierbench.task import resolve_message_limit

CLIS = {name: record for name, record in HARNESSES.items() if record.runs_cli}


def test_the_readme_harness_table_is_generated_from_the_registry():
    table = load_script("harnesses_table")
    text = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert table.rewritten(text) == text, "run python scripts/harnesses_table.py"
    edited = text.replace("| `pi` | Pi | 0.84.2 |", "| `pi` | Pi | 0.84.3 |")
    assert edited != text and table.rewritten(edited) == text


def test_the_image_build_script_pins_each_cli_harness_at_its_record_version():
    """scripts/harness-clis.sh fetches exactly each record's package, whose version is the record's."""
    script = (REPO_ROOT / "scripts" / "harness-clis.sh").read_text(encoding="utf-8")
    pins = dict(re.findall(r"^([A-Z_]+)=(\S+)$", script, flags=re.MULTILINE))
    for name, record in CLIS.items():
        assert record.package in pins.values(), f"{name}: scripts/harness-clis.sh does not fetch {record.package}"
        assert record.version is not None and record.version in record.package
    packages = {record.package for record in CLIS.values()}
    fetched = {pin for key, pin in pins.items() if key in ("CLAUDE_CODE", "CODEX", "GEMINI_CLI", "PI", "OPENCLAW", "MINI_SWE_AGENT")}
    assert fetched == packages  # no pin the registry does not know


def test_docker_md_names_each_cli_harness_package():
    text = (REPO_ROOT / "docs" / "docker.md").read_text(encoding="utf-8")
    for name, record in CLIS.items():
        rows = [line for line in text.splitlines() if line.startswith(f"| {name} |")]
        assert len(rows) == 1 and record.package in rows[0], f"docs/docker.md: no row of {name} naming {record.package}"


def test_the_code_task_overlay_copies_what_the_cli_harnesses_need():
    assert set(CLI_PATHS) == {path for record in CLIS.values() for path in record.image_paths}


def test_the_paper_configurations_name_registered_harnesses():
    assert HARNESS_NAMES["Pi"] == "pi"
    for _, label in ALTERNATIVES:
        assert label in HARNESS_NAMES, f"{label}: no harness has that display name"
    assert {HARNESS_NAMES[label] for _, label in ALTERNATIVES} == {"claude_code", "codex_cli", "gemini_cli", "mini_swe_agent",
                                                                  "openclaw"}


def test_where_each_harness_runs_and_how_its_model_is_reached():
    """Every harness in the container sandboxes; in vgb the project's own and every CLI (issue 53), the CLIs
    over the project's socket; every CLI under docker over Inspect's bridge but pi and Claude Code, over the project's
    socket there too (Inspect's bridge their other choice); under k8s every CLI over Inspect's bridge."""
    assert all("vgb" in h.sandboxes for h in HARNESSES.values())
    assert all(h.sandboxes[-2:] == ("docker", "k8s") for h in HARNESSES.values())
    assert {name: h.transports["vgb"] for name, h in HARNESSES.items() if "vgb" in h.sandboxes} == {
        "default": IN_PROCESS, "single_reply": IN_PROCESS, "pi": UNIX_SOCKET, "claude_code": UNIX_SOCKET,
        "openclaw": UNIX_SOCKET, "codex_cli": UNIX_SOCKET, "gemini_cli": UNIX_SOCKET, "mini_swe_agent": UNIX_SOCKET}
    assert {name: h.transport_choices("docker") for name, h in CLIS.items()} == {
        name: (UNIX_SOCKET, SANDBOX_BRIDGE) if name in ("pi", "claude_code") else (SANDBOX_BRIDGE,) for name in CLIS}
    assert all(h.transport_choices("k8s") == (SANDBOX_BRIDGE,) for h in CLIS.values())
    assert {name: h.traced_executable for name, h in CLIS.items()} == {
        "claude_code": "claude", "codex_cli": "codex", "mini_swe_agent": "mini", "gemini_cli": "node", "pi": "node",
        "openclaw": "node"}


def test_message_limits_are_the_records():
    assert {name: resolve_message_limit(None, name) for name in HARNESSES} == {
        name: 400 if name == "default" else None for name in HARNESSES}


def test_an_unknown_harness_or_sandbox_is_refused():
    with pytest.raises(UserError, match=r"unknown harness 'pie' \(choose from default, single_reply, "):
        get("pie")
    with pytest.raises(ValueError, match="transports must name sandboxes"):
        Harness(name="x", display_name="x", solver=lambda budget: None, transports={"lxc": IN_PROCESS})  # type: ignore[arg-type,return-value]
    with pytest.raises(ValueError, match="other_transports must name sandboxes it runs in"):
        Harness(name="x", display_name="x", solver=lambda budget: None, transports={"vgb": IN_PROCESS},  # type: ignore[arg-type,return-value]
                other_transports={"docker": (SANDBOX_BRIDGE,)})
