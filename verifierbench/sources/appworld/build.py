"""AppWorld: placeholder until the adapter lands (see the open issue)."""

from __future__ import annotations

from verifierbench.errors import UserError


def build(seed: int):
    raise UserError("not built yet")
