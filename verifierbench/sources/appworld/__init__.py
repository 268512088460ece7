"""AppWorld state tasks: the candidate is solution code (`{"code": str}`), the reference is AppWorld's own
evaluation of the world after running it. AppWorld pins pydantic<2, so it cannot share the harness's
environment: it lives in its own venv (built from /usr/bin/python3, so sandboxes can run it), named by
$VERIFIERBENCH_APPWORLD_PYTHON, with its data under $APPWORLD_ROOT (`appworld install`, `appworld
download data`). Everything AppWorld runs, runs in the executor's sandbox.

- `runtime`: finds that environment and its data, and calls the bridge in the sandbox;
- `bridge/`: what runs there with AppWorld imported (probe, list tasks, evaluate code);
- `cases`: case generators from the ground-truth solution; `build`: selection and C1 replay;
- `reference`: the reference verifier.

Written against appworld 0.1.3.post1 as read from its wheel (`appworld.verify.verify_tasks` is the
model: ground truth `compiled_solution_code` plus `solution(apis, requester)`, then `world.evaluate()`).
Its data is not reachable from the machines this was written on, so it has not run against real tasks.
"""
