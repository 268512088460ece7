"""The construction kernel every source builds its tasks with (paper §2.3): case drafts and their dedupe, C1 replay
of the drafts through the source's reference, and the seeded selection that screens tasks until each quota is met.

What a source brings is its own: the upstream data, the task it makes of an item, its case generators and its
reference decision. Nothing here names a source or a task type's candidate format.
"""
