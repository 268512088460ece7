"""Every name this package takes from a private (`_`-prefixed) inspect_ai module, in one place.

Inspect may change any of them in any release; tests/test_inspect_private.py pins each one (its signature or value as
used here), so an Inspect upgrade that breaks one fails that test by name rather than a harness at run time. No other
module of the package imports a private inspect_ai module (the same test checks that).
"""

from __future__ import annotations

# Inspect's "print the message, no traceback" error (user_errors.py).
from inspect_ai._util.error import PrerequisiteError
# What @scorer registers with (_registry.py registers a scorer under a second name).
from inspect_ai.scorer._scorer import scorer_register
# Inspect's Docker sandbox, which sandboxes/docker_provider.py extends.
from inspect_ai.util._sandbox.docker.docker import DockerSandboxEnvironment

__all__ = ["DockerSandboxEnvironment", "PrerequisiteError", "scorer_register"]
