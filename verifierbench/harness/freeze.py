"""The task's last solver: freezes the delivered verifier into the sample's store when generation ends.

With the files (and their content hash) in the store, judging needs neither the sample's sandbox nor the
scorer to have run: `inspect eval --no-score` releases the sandbox and keeps everything judging needs, and
`inspect score LOG` or `verifierbench judge --logs LOGDIR` judge the log later with the coupled path's scores.
"""

from __future__ import annotations

from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import LimitExceededError, sandbox, store

from verifierbench import verifier_files


@solver
def freeze_verifier(harness: Solver) -> Solver:
    """Runs the harness, then reads the verifier directory once (links never followed) and stores its files,
    the skipped entries and the hash; also when a message or token limit ends the harness (Inspect raises
    those through the solver). A time limit cancels the sample: the scorer then reads the sandbox as before.

    Args:
        harness: the generation harness's solver.
    """

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        try:
            state = await harness(state, generate)
        except LimitExceededError:
            await freeze()
            raise
        await freeze()
        return state

    return solve


async def freeze() -> None:
    if store().get(verifier_files.STORE_KEY) is None:
        files, skipped = await verifier_files.collect(sandbox())
        store().set(verifier_files.STORE_KEY, verifier_files.frozen_record(files, skipped))
