"""The VerifierBench Inspect task by file path: `inspect eval tasks/verifierbench.py -T source=bfcl`.

Same task and options as the registered `verifierbench/verifierbench` (see verifierbench/harness/task.py).
"""

from inspect_ai import Task, task

from verifierbench.harness import task as registered


@task
def verifierbench(**options) -> Task:
    return registered.verifierbench(**options)
