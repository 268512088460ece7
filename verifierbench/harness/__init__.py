"""Inspect integration (docs/inspect.md): the task, its sandbox, the generation harnesses."""
