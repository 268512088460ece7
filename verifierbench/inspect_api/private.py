"""Every name this package takes from a private (`_`-prefixed) inspect_ai module, in one place.

Inspect may change any of them in any release; tests/test_inspect_private.py pins each one (its signature or value as
used here), so an Inspect upgrade that breaks one fails that test by name rather than a harness at run time. No other
module of the package imports a private inspect_ai module (the same test checks that).
"""

from __future__ import annotations

# The chat-completions method of Inspect's sandbox agent bridge service and its wrapper that returns a provider's
# error to the client (under PROVIDER_ERROR_KEY) instead of raising it: pi in the vgb sandbox serves them on its own
# unix socket (harness/pi_vgb.py), as Inspect's in-container proxy would.
from inspect_ai.agent._bridge._errors import PROVIDER_ERROR_KEY
from inspect_ai.agent._bridge.sandbox.service import _forward_provider_errors as forward_provider_errors
from inspect_ai.agent._bridge.sandbox.service import generate_completions
# Inspect's "print the message, no traceback" error (user_errors.py).
from inspect_ai._util.error import PrerequisiteError
# What @scorer registers with (_registry.py registers a scorer under a second name).
from inspect_ai.scorer._scorer import scorer_register
# Inspect's Docker sandbox, which sandboxes/docker_provider.py extends.
from inspect_ai.util._sandbox.docker.docker import DockerSandboxEnvironment

__all__ = ["PROVIDER_ERROR_KEY", "DockerSandboxEnvironment", "PrerequisiteError", "forward_provider_errors",
           "generate_completions", "scorer_register"]
