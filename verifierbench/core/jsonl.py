"""Reading JSON-lines files with one-line errors that name the file and the line."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Iterator

from verifierbench.core.errors import UserError


def read_jsonl(path: str | Path, error: type[UserError] = UserError, missing: str = "no such file") -> Iterator[tuple[str, dict[str, Any]]]:
    """Yields (`<path> line N`, object) for every non-blank line; raises `error` on the first bad one. `-` is stdin."""
    if str(path) == "-":
        name, text = "<stdin>", _decode(sys.stdin.buffer.read(), "<stdin>", error)
    else:
        name, text = str(path), read_text(Path(path), error, missing)
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{name} line {number}"
        data = loads(line, where, error)
        if not isinstance(data, dict):
            raise error(f"{where}: expected a JSON object")
        yield where, data


def loads(text: str, where: str, error: type[UserError] = UserError) -> Any:
    """`json.loads`, with every way it fails (syntax, nesting too deep, an integer too long) as one `error` line."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(f"{where}: not valid JSON ({exc.msg})") from None
    except RecursionError:
        raise error(f"{where}: not valid JSON (nested too deeply)") from None
    except ValueError as exc:  # an integer too long to convert
        raise error(f"{where}: not valid JSON ({exc})") from None


def read_text(path: Path, error: type[UserError] = UserError, missing: str = "no such file") -> str:
    """A file's UTF-8 text, or one `error` line saying why not."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise error(f"{path}: {missing}") from None
    except IsADirectoryError:
        raise error(f"{path}: is a directory, expected a JSONL file") from None
    except OSError as exc:
        raise error(f"{path}: cannot read ({exc.strerror})") from None
    return _decode(raw, str(path), error)


def _decode(raw: bytes, name: str, error: type[UserError]) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{name}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
