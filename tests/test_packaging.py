"""The package is installed the way Inspect finds it."""

from importlib.metadata import entry_points


def test_inspect_entry_point_is_registered_and_imports():
    points = [p for p in entry_points(group="inspect_ai") if p.name == "verifierbench"]
    assert len(points) == 1
    module = points[0].load()
    assert module.__name__ == "verifierbench._registry"


def test_console_script_is_registered():
    scripts = [p for p in entry_points(group="console_scripts") if p.name == "verifierbench"]
    assert scripts and scripts[0].value == "verifierbench.cli.main:main"
