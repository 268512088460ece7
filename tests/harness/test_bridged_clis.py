"""How pi and OpenClaw are configured and started (harness/bridged_clis.py): the bridge as their only provider,
their start-up network operations and web tools off. The runs themselves are in test_harnesses.py."""

from __future__ import annotations

import json

from verifierbench.harness.registry import HARNESSES
from verifierbench.harness.bridged_clis import OPENCLAW, PI, failure_note, missing_cli_message


def test_pi_reaches_only_the_bridge_and_starts_offline():
    (path, text), = PI.config(13231).items()
    providers = json.loads(text)["providers"]
    assert path == "agent/models.json" and list(providers) == ["inspect"]
    assert providers["inspect"]["baseUrl"] == "http://127.0.0.1:13231/v1"
    command = PI.command("/tmp/home", "SYSTEM", "TASK")
    assert command[:2] == ["pi", "-p"] and command[-1] == "TASK"
    assert {"--offline", "--no-session", "--no-extensions", "--no-skills", "--no-context-files"} <= set(command)
    assert command[command.index("--tools") + 1] == "read,bash,edit,write"
    assert PI.env == {"PI_OFFLINE": "1", "PI_TELEMETRY": "0", "PI_SKIP_VERSION_CHECK": "1"}


def test_openclaw_reaches_only_the_bridge_without_web_tools_or_update_check():
    (path, text), = OPENCLAW.config(13232).items()
    config = json.loads(text)
    assert path == ".openclaw/openclaw.json"
    assert config["update"] == {"checkOnStart": False}
    assert {"web_search", "web_fetch", "browser"} <= set(config["tools"]["deny"])
    assert config["models"]["providers"]["inspect"]["baseUrl"] == "http://127.0.0.1:13232/v1"
    assert config["agents"]["defaults"]["model"]["primary"] == "inspect/inspect"
    command = OPENCLAW.command("/tmp/home", "SYSTEM", "TASK")
    assert command[:4] == ["openclaw", "agent", "--local", "--agent"] and command[-1] == "SYSTEM\n\nTASK"


def test_every_cli_harness_records_the_paper_version():
    versions = {name: record.version for name, record in HARNESSES.items() if record.runs_cli}
    assert versions == {"claude_code": "2.1.263", "codex_cli": "0.149.0", "gemini_cli": "0.60.0",
                                "mini_swe_agent": "2.4.6", "pi": "0.84.2", "openclaw": "2026.6.34"}
    assert all(record.version is None for record in HARNESSES.values() if not record.runs_cli)


def test_failure_notes_are_one_line_with_the_stderr_tail():
    note = failure_note("pi", 3, "line one\n" + "x" * 5000 + "\nthe end\n")
    assert "\n" not in note and note.startswith("pi exited with status 3: ") and note.endswith("the end")
    assert failure_note("pi", 1, "") == "pi exited with status 1 (no output)"
    assert missing_cli_message("pi", "no `pi` on $PATH").endswith("build the image with scripts/harness-clis.sh build")
