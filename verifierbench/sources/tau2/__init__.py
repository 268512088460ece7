"""tau2-bench state tasks (retail, banking_knowledge) from the installed `inspect-evals` package.

- `data`: upstream tasks, policies and tool definitions;
- `environment`: the public environment (`Tau2Environment.replay`), what `run_public` serves;
- `reference`: the reference verifier (`decide`), tau2's own evaluation around the replay;
- `cases`: the case generators; `build`: seeded selection, case generation and C1 replay.
"""
