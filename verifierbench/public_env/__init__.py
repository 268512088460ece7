"""The host side of `run_public`: a task's public environment served to sandboxes over a unix socket,
with a call budget the sandboxed code cannot touch (docs/state-suite.md)."""
