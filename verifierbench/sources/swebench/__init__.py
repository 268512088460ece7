"""SWE-bench Verified code tasks: the candidate is a diff against a read-only repository checkout.

- `instances`: SWE-bench rows (dataset hub at a pinned revision, or a local JSON/JSONL/parquet file);
- `checkout`: repository checkouts at the base commit, in a content-addressed store;
- `diffs`: reading and writing unified diffs (which files a diff touches, building new ones);
- `sandbox_runner/`: what runs inside the sandbox: copy the checkout, apply diffs, run named tests;
- `testrun`: runs that in the executor's sandbox (candidate code is untrusted);
- `grading`: SWE-bench's own grading, hardened against the known exploits;
- `reference`: the reference verifier; `served_environment`: what `run_public` serves;
- `cases`: the case generators; `selection`: which instances a build walks and what it keeps; `instance_build`: one
  instance's build (checkout, environment, gold runs, cases, C1 replay) or exclusion, remembered in `build_memos`.
"""
