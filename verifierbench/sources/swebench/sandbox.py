"""One Docker sandbox per SWE-bench instance (`-T sandbox=docker`): a compose file for the instance's
published environment image (SWE-bench's own naming), rendered from verifierbench/sandboxes/swebench/."""

from __future__ import annotations

import tempfile
from importlib.resources import files
from pathlib import Path

from jinja2 import Template

from verifierbench.schema import Task

TEMPLATE = Path(str(files("verifierbench") / "sandboxes" / "swebench" / "compose.yaml.j2"))
VGB_ENV = Path(str(files("verifierbench") / "sandbox_lib" / "vgb_env"))


def image_for(instance_id: str) -> str:
    from swebench.task.checks import expected_image

    return expected_image(instance_id)


def compose_file(task: Task, directory: Path | None = None) -> Path:
    directory = directory or Path(tempfile.gettempdir()) / "verifierbench-compose"
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{task.source_id}.compose.yaml"
    text = Template(TEMPLATE.read_text()).render(image=image_for(task.source_id), vgb_env=str(VGB_ENV))
    if not path.exists() or path.read_text() != text:
        path.write_text(text)
    return path
