"""Which profile an instance's environment is made from (issue 55): its version's, unless the recipe names one for the
instance (matplotlib-23299: pytest 8's parametrised ids); a profile's Python (matplotlib 3.4 on 3.9, for the cp39
wheel's ft2font). The other instances' task records, environment keys and records (which key their cached runs)
stay what they were."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from verifierbench.sources.swebench import extensions, instance_build, instances, python39_rootfs, venv_store

MPL = "matplotlib/matplotlib"


@pytest.fixture()
def checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A checkout whose build inputs are fixed, and a fixed interpreter version: the keys below are main's (72ea2b1)."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "_ext.c").write_text("int f(void) { return 1; }\n")
    (tmp_path / "lib" / "pkg").mkdir(parents=True)
    (tmp_path / "lib" / "pkg" / "__init__.py").write_text("VALUE = 1\n")
    monkeypatch.setattr(venv_store, "python_version", lambda: "3.11.2")
    monkeypatch.setattr(python39_rootfs, "python_version", lambda: "3.9.2")
    extensions.sources_digest.cache_clear()
    return tmp_path


def _record_digest(spec: venv_store.EnvSpec) -> str:
    import hashlib
    return hashlib.sha256(json.dumps(spec.to_json(), sort_keys=True).encode()).hexdigest()[:12]


# (version -> environment key, profile venv key, digest of the environment's record) as main computed them before
# per-instance profiles existed: the run cache keys a run on the first and the third.
MAIN_KEYS = {
    "3.1": ("matplotlib__matplotlib-3.1-f7c42a451f1a4267-9e77ddf34875c154", "matplotlib__matplotlib-profile-old-b6d4e4a71f712d90",
            "4be70e59916c"),
    "3.5": ("matplotlib__matplotlib-3.5-945b60a6ffe56880-cb648bead27ca2e6", "matplotlib__matplotlib-profile-new-8084eeedb1314bf2",
            "5788ea3cfe43"),
    "3.6": ("matplotlib__matplotlib-3.6-c8d8985b64327370-b9f5dbfd6ec4f748", "matplotlib__matplotlib-profile-new-8084eeedb1314bf2",
            "37eb16e9bc73"),
    "3.7": ("matplotlib__matplotlib-3.7-462607a02ea87fb9-84605310c5ffa700", "matplotlib__matplotlib-profile-new-8084eeedb1314bf2",
            "35c0cad4bdd6"),
}


@pytest.mark.parametrize("version", sorted(MAIN_KEYS))
def test_instances_without_a_profile_of_their_own_keep_their_environment_keys_and_records(checkout, version):
    environment = _environment_of(f"matplotlib__matplotlib-9999{version[-1]}", version)
    assert environment == {"repo": MPL, "version": version}  # the task record as before: no "profile", no "python"
    spec = venv_store.spec_of_environment(environment, checkout)
    assert (spec.key, spec.venv.key, _record_digest(spec)) == MAIN_KEYS[version]


def test_23299_gets_the_pytest_8_profile_and_a_venv_of_its_own(checkout):
    environment = _environment_of("matplotlib__matplotlib-23299", "3.5")
    assert environment == {"repo": MPL, "version": "3.5", "profile": "new-pytest8"}
    spec = venv_store.spec_of_environment(environment, checkout)
    other = venv_store.spec_of_environment({"repo": MPL, "version": "3.5"}, checkout)
    assert "pytest==8.0.0" in spec.pip_packages and "pytest==7.4.4" not in spec.pip_packages
    assert [p for p in spec.pip_packages if not p.startswith("pytest==")] == [p for p in other.pip_packages if not p.startswith("pytest==")]
    assert spec.key != other.key and spec.venv.key != other.venv.key
    assert spec.venv.version == "profile-new-pytest8" and not spec.venv.profile and spec.venv.venv == spec.venv
    assert spec.extensions == other.extensions  # the same sources: the same compiled overlay digest


def test_an_unknown_recorded_profile_is_refused(checkout):
    with pytest.raises(venv_store.EnvironmentError_, match="no environment profile measured"):
        venv_store.spec_of_environment({"repo": MPL, "version": "3.5", "profile": "no-such"}, checkout)


def test_34_runs_on_python_39_with_the_cp39_wheels_ft2font(checkout):
    environment = _environment_of("matplotlib__matplotlib-20676", "3.4")
    assert environment == {"repo": MPL, "version": "3.4", "python": "3.9"}
    spec = venv_store.spec_of_environment(environment, checkout)
    assert spec.python == "3.9.2" and spec.rootfs == str(python39_rootfs.rootfs()) and spec.venv.rootfs == spec.rootfs
    assert spec.venv.version == "profile-new-py39" and spec.venv.key != venv_store.spec_for(MPL, "3.5", checkout).venv.key
    assert spec.to_json()["ld_library_path"] == venv_store.LIBS_DIR
    assert extensions.FT2FONT_WHEEL["3.4"] == "matplotlib==3.4.3"
    # A record that asks for another Python than the profile's is refused, not made on the wrong interpreter.
    with pytest.raises(venv_store.EnvironmentError_, match="runs on Python 3.9, not 3.11"):
        venv_store.spec_for(MPL, "3.4", checkout)
    with pytest.raises(venv_store.EnvironmentError_, match="runs on Python 3.11, not 3.9"):
        venv_store.spec_for(MPL, "3.5", checkout, "3.9")


def test_other_repositories_records_are_untouched():
    row = _row("django__django-11848", "django/django", "3.1")
    assert instance_build._environment(row) == {"repo": "django/django", "version": "3.1"}
    assert extensions.environment_choice(extensions.ASTROPY, "5.1", "astropy__astropy-13977") == {}


def test_the_extensions_build_on_39_sees_the_root_file_systems_headers_and_libraries(tmp_path, monkeypatch):
    """`_compiling_on_39`: the headers are ensured first, then every command runs with the venv's libraries and the root
    file system's include directory searched after the host's."""
    calls: list[tuple[list[str], dict[str, Any]]] = []
    ensured: list[Path] = []
    monkeypatch.setattr(python39_rootfs, "ensure_headers", lambda root, say: ensured.append(root))

    class Logged:
        def __call__(self, argv: list[str], cwd: Path | None = None, env: dict[str, Any] | None = None) -> None:
            calls.append((argv, env or {}))
    spec = venv_store.EnvSpec(MPL, "3.4", "pytest", (), (), "3.9.2", "abc", rootfs=str(tmp_path / "root"))
    run = venv_store._compiling_on_39(spec, tmp_path / "venv", Logged())  # type: ignore[arg-type]
    run(["python", "setup.py", "build_ext", "--inplace"], env={"MAX_JOBS": "1"})
    assert ensured == [tmp_path / "root"]
    (argv, env), = calls
    assert env["MAX_JOBS"] == "1" and env["LD_LIBRARY_PATH"] == str(tmp_path / "venv" / venv_store.LIBS_DIR)
    assert env["CPPFLAGS"] == f"-idirafter {tmp_path / 'root' / 'usr/include'}"


def test_headers_present_need_nothing_and_missing_ones_need_root(tmp_path, monkeypatch):
    (tmp_path / "usr/include/python3.9").mkdir(parents=True)
    (tmp_path / python39_rootfs.HEADERS_IN_ROOTFS).write_text("/* Python.h */\n")
    python39_rootfs.ensure_headers(tmp_path, lambda line: None)  # nothing to do, nothing run
    (tmp_path / python39_rootfs.HEADERS_IN_ROOTFS).unlink()
    monkeypatch.setattr(python39_rootfs.os, "geteuid", lambda: 1000)
    with pytest.raises(python39_rootfs.RootfsError, match="only root can add them"):
        python39_rootfs.ensure_headers(tmp_path, lambda line: None)


def _environment_of(instance_id: str, version: str) -> dict[str, Any]:
    return instance_build._environment(_row(instance_id, MPL, version))


def _row(instance_id: str, repo: str, version: str) -> instances.Instance:
    return instances.Instance(instance_id=instance_id, repo=repo, base_commit="0" * 40, patch="", test_patch="",
                              fail_to_pass=[], pass_to_pass=[], version=version, problem_statement="")
