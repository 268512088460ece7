"""The model-free policies pick each harness's own shell and file-writing tools from the tool list it offers, so the
same policy drives every harness's real loop (the end-to-end runs are in tests/harness/test_harnesses.py)."""

from __future__ import annotations

import pytest

from verifierbench.policies.provider import vocabulary_of

# The tools each harness offers the model (as its requests send them), and the (shell, write) pair the policy uses.
OFFERED = {
    "default": ({"bash", "python", "write_file", "replace_in_file", "submit"}, ("bash", "write_file")),
    "mini_swe_agent": ({"bash"}, ("bash", "write_file")),  # no write tool: it writes through the shell
    "claude_code": ({"Bash", "Write", "Read", "Edit"}, ("Bash", "Write")),
    "codex_cli": ({"exec_command", "apply_patch"}, ("exec_command", "")),
    "gemini_cli": ({"run_shell_command", "write_file", "read_file"}, ("run_shell_command", "write_file")),
    "pi": ({"read", "bash", "edit", "write"}, ("bash", "write")),
    "openclaw": ({"read", "write", "edit", "apply_patch", "exec", "process"}, ("exec", "write")),
}


@pytest.mark.parametrize("harness", sorted(OFFERED))
def test_the_policy_speaks_the_harness_vocabulary(harness):
    names, expected = OFFERED[harness]
    words = vocabulary_of(names)
    assert words is not None and (words.shell, words.write) == expected
    # mini-swe-agent alone ends on its completion command; the others on submit or a reply without a tool call
    assert bool(words.finish_command) == (harness in ("default", "mini_swe_agent"))
    assert words.write_arguments("/workspace/verifier/verify.py", "x") or words.write not in names


def test_no_shell_no_vocabulary():
    assert vocabulary_of({"read", "write"}) is None
