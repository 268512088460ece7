"""The construction kernel every source builds its tasks with (paper §2.3): case drafts and their dedupe, C1 replay
of the drafts through the source's reference, and the seeded selection that screens tasks until each quota is met.
(An auditor's proposals are in core/proposals.py; reference decisions a few at a time are the format's `run_each`.)

What a source brings is its own: the upstream data, the task it makes of an item, its case generators and its
reference decision (and, for C1 replay, its naive checks). Nothing here names a source or a task type's candidate
format, and nothing here imports a source, the screening or the audit: they all build on it.
"""
