"""The VerifierBench Inspect task by file path: `inspect eval tasks/verifierbench.py -T source=bfcl`.

Same task and options as the registered `verifierbench/verifierbench` (see verifierbench/task.py).
"""

from functools import wraps

from inspect_ai import Task, task

from verifierbench import task as registered


# Not a plain re-export: Inspect finds a file's tasks by scanning its source for functions decorated `@task`
# there (inspect_ai._eval.loader.code_has_decorator); `from verifierbench.task import verifierbench` lists none.
@task
# The registered task's signature (through __wrapped__), so Inspect records the same task_args, defaults included,
# as a run through the registry; name and module stay this file's, so Inspect still finds the task here.
@wraps(registered.verifierbench, assigned=("__doc__",), updated=())
def verifierbench(**options) -> Task:
    return registered.verifierbench(**options)
