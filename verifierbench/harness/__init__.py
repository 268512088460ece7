"""Inspect integration (architecture §7): the task, its sandbox, the generation harnesses."""
