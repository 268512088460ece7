"""`$VERIFIERBENCH_ENVS_FROM`: a node copies a test environment made elsewhere instead of making it again, only from a
directory trusted as the store is and only when the entry's record is the environment's own spec (issue 38, item 3)."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from tests.conftest import root_only
from verifierbench.core.errors import UserError
from verifierbench.sources.swebench import venv_store

OTHER = 4242  # another local user


@pytest.fixture
def places(monkeypatch):
    """(this node's store, the shared directory), both below a directory every user can search."""
    base = Path(tempfile.mkdtemp(prefix="vb-shared-envs-", dir="/var/tmp"))
    os.chmod(base, 0o755)
    store, shared = base / "envs", base / "shared"
    shared.mkdir(mode=0o755)
    monkeypatch.setenv(venv_store.ROOT_ENV, str(store))
    monkeypatch.setenv(venv_store.SHARED_ENV, str(shared))
    yield store, shared
    shutil.rmtree(base, ignore_errors=True)


def _spec(version: str = "1.0") -> venv_store.EnvSpec:
    return venv_store.EnvSpec(repo="org/proj", version=version, runner="pytest", requirements=(), pip_packages=(),
                              python="3.11.2")


def _made_elsewhere(shared: Path, spec: venv_store.EnvSpec, record: dict) -> Path:
    entry = shared / spec.key
    (entry / "bin").mkdir(parents=True)
    (entry / "bin" / "marker").write_text("made on another node\n")
    os.symlink("/usr/bin/python3", entry / "bin" / "python")
    (entry / venv_store.RECORD).write_text(json.dumps(record))
    for path in [entry, entry / "bin"]:
        os.chmod(path, 0o755)
    return entry


def _makes(monkeypatch) -> list[str]:
    made: list[str] = []

    def make(spec, checkout, staging):
        made.append(spec.key)
        staging.mkdir()
        (staging / venv_store.RECORD).write_text(json.dumps(spec.to_json()))

    monkeypatch.setattr(venv_store, "_make", make)
    return made


def test_an_environment_made_elsewhere_is_copied_not_made(places, monkeypatch, tmp_path):
    store, shared = places
    spec = _spec()
    _made_elsewhere(shared, spec, spec.to_json())
    made = _makes(monkeypatch)
    said: list[str] = []
    found = venv_store.ensure(spec, tmp_path, say=said.append)
    assert found == store / spec.key and made == []
    assert (found / "bin" / "marker").read_text() == "made on another node\n"
    assert os.readlink(found / "bin" / "python") == "/usr/bin/python3"  # links kept as links, not followed
    assert venv_store.env_dir(spec.key, spec) == found and any("copied test environment" in line for line in said)


def test_an_entry_that_is_not_what_its_name_says_is_made_here(places, monkeypatch, tmp_path):
    store, shared = places
    spec = _spec()
    _made_elsewhere(shared, spec, _spec("2.0").to_json())  # another spec's record under this key
    made = _makes(monkeypatch)
    said: list[str] = []
    assert venv_store.ensure(spec, tmp_path, say=said.append) == store / spec.key
    assert made == [spec.key] and not (store / spec.key / "bin" / "marker").exists()
    assert any("is not the environment its name says" in line for line in said)


def test_without_the_entry_the_environment_is_made_here(places, monkeypatch, tmp_path):
    store, _ = places
    made = _makes(monkeypatch)
    venv_store.ensure(_spec(), tmp_path, say=lambda line: None)
    assert made == [_spec().key]


@root_only("a directory of another user's needs root (chown)")
def test_a_shared_directory_of_another_user_s_is_refused(places, monkeypatch, tmp_path):
    _, shared = places
    spec = _spec()
    _made_elsewhere(shared, spec, spec.to_json())
    os.chown(shared, OTHER, OTHER)
    made = _makes(monkeypatch)
    with pytest.raises(UserError, match=rf"VERIFIERBENCH_ENVS_FROM.*uid {OTHER}"):
        venv_store.ensure(spec, tmp_path, say=lambda line: None)
    assert made == []
