"""Files shipped inside the package (data, sandbox configs, templates), found through importlib.resources so
an installed wheel finds them as well as a source checkout does."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from verifierbench.core.errors import UserError


def package_path(package: str, *parts: str) -> Path:
    """A file or directory shipped inside `package`, as a filesystem path (tools such as docker compose, helm
    and the bubblewrap sandbox need real paths; setuptools installs package data as plain files)."""
    resource = files(package).joinpath(*parts)
    path = Path(str(resource))
    if not path.exists():
        raise UserError(f"{'/'.join(parts)} is missing from the installed {package} package "
                        "(package data not installed? reinstall verifierbench)")
    return path
