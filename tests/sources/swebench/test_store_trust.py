"""Stores under world-writable directories are not trusted by name (issue 35, defect 1): another local user who makes a
store first (in /var/tmp, say) and plants a lock link or a ready-looking entry is refused in one line naming the path
and its owner, and nothing it planted is opened, truncated or returned."""

from __future__ import annotations

import json
import os

import pytest

from tests.conftest import root_only
from verifierbench.core import safe_fs
from verifierbench.core.errors import UserError
from verifierbench.sources.swebench import checkout, venv_store

needs_root = root_only("planting a store as another user needs root (chown)")
OTHER = 4242  # another local user


@pytest.fixture
def tmp_path():
    """A directory every user can search (the stores must be reachable by the sandboxes' uids; pytest's are 0700)."""
    import shutil
    import tempfile
    from pathlib import Path

    base = Path(tempfile.mkdtemp(prefix="vb-store-trust-", dir="/var/tmp"))
    os.chmod(base, 0o755)
    yield base
    shutil.rmtree(base, ignore_errors=True)


def _spec() -> venv_store.EnvSpec:
    return venv_store.EnvSpec(repo="org/proj", version="1.0", runner="pytest", requirements=(), pip_packages=(), python="3.11.2")


def _planted_store(tmp_path, name: str):
    store = tmp_path / "var-tmp" / name
    store.mkdir(parents=True)
    os.chmod(tmp_path / "var-tmp", 0o1777)  # a sticky, world-writable place like /var/tmp
    os.chown(store, OTHER, OTHER)
    return store


@needs_root
def test_a_planted_environment_in_another_user_s_store_is_refused(tmp_path, monkeypatch):
    store = _planted_store(tmp_path, "envs")
    spec = _spec()
    planted = store / spec.key
    (planted / "bin").mkdir(parents=True)
    (planted / "verifierbench-env.json").write_text(json.dumps(spec.to_json()))
    monkeypatch.setenv(venv_store.ROOT_ENV, str(store))
    with pytest.raises((UserError, safe_fs.UntrustedStore), match=rf"{store}.*uid {OTHER}"):
        venv_store.ensure(spec, tmp_path)
    with pytest.raises(UserError, match=f"uid {OTHER}"):
        venv_store.env_dir(spec.key)


@needs_root
def test_a_planted_lock_link_is_never_opened(tmp_path, monkeypatch):
    secret = tmp_path / "secret"
    secret.write_text("root's data")
    os.chmod(secret, 0o600)
    store = _planted_store(tmp_path, "envs")
    spec = _spec()
    os.symlink(secret, store / f".{spec.key}.lock")
    os.lchown(store / f".{spec.key}.lock", OTHER, OTHER)
    monkeypatch.setenv(venv_store.ROOT_ENV, str(store))
    monkeypatch.setattr(venv_store, "_make", lambda *a: (_ for _ in ()).throw(venv_store.EnvironmentError_("not in this test")))
    with pytest.raises((UserError, safe_fs.UntrustedStore, venv_store.EnvironmentError_)):
        venv_store.ensure(spec, tmp_path)
    assert secret.read_text() == "root's data"


@needs_root
def test_a_planted_entry_in_our_own_store_is_refused(tmp_path, monkeypatch):
    store = tmp_path / "envs"
    store.mkdir()
    spec = _spec()
    planted = store / spec.key
    planted.mkdir()
    (planted / "verifierbench-env.json").write_text(json.dumps(spec.to_json()))
    os.chown(planted, OTHER, OTHER)
    monkeypatch.setenv(venv_store.ROOT_ENV, str(store))
    with pytest.raises((UserError, safe_fs.UntrustedStore), match=f"uid {OTHER}"):
        venv_store.env_dir(spec.key)


def test_an_environment_whose_record_does_not_match_its_key_is_not_one(tmp_path, monkeypatch):
    monkeypatch.setenv(venv_store.ROOT_ENV, str(tmp_path / "envs"))
    spec = _spec()
    entry = tmp_path / "envs" / spec.key
    entry.mkdir(parents=True)
    (entry / "verifierbench-env.json").write_text(json.dumps({**spec.to_json(), "pip_packages": ["evil"]}))
    monkeypatch.setattr(venv_store, "_make", lambda *a: (_ for _ in ()).throw(venv_store.EnvironmentError_("remade")))
    with pytest.raises(venv_store.EnvironmentError_, match="remade"):  # not returned as the spec's environment: remade
        venv_store.ensure(spec, tmp_path)


@needs_root
def test_a_planted_checkout_is_refused(tmp_path, monkeypatch):
    store = _planted_store(tmp_path, "checkouts")
    digest = "0" * 32
    (store / digest).mkdir()
    (store / digest / "conftest.py").write_text("import os; os.system('id')\n")
    monkeypatch.setenv(checkout.STORE_ENV, str(store))
    with pytest.raises((UserError, safe_fs.UntrustedStore), match=rf"{store}.*uid {OTHER}"):
        checkout.checkout_dir(digest)


def test_a_checkout_whose_tree_does_not_match_its_digest_is_replaced(tmp_path, monkeypatch):
    import subprocess

    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.py").write_text("x = 1\n")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "c"], check=True)
    store = tmp_path / "checkouts"
    digest = checkout.materialize(repo, "HEAD", store)
    (store / digest / "conftest.py").write_text("raise SystemExit('planted')\n")
    assert checkout.materialize(repo, "HEAD", store) == digest
    assert not (store / digest / "conftest.py").exists()


def test_trusted_store_walks_without_following_others_links(tmp_path):
    (tmp_path / "mine").mkdir()
    assert safe_fs.trusted_store(tmp_path / "mine" / "a" / "b") == str(tmp_path / "mine" / "a" / "b")
    os.symlink(tmp_path / "mine", tmp_path / "link")
    assert safe_fs.trusted_store(tmp_path / "link" / "a") == str(tmp_path / "mine" / "a")  # our own link: followed
    os.chmod(tmp_path / "mine" / "a", 0o775)
    with pytest.raises(safe_fs.UntrustedStore, match="writable by group"):
        safe_fs.trusted_store(tmp_path / "mine" / "a")
    with pytest.raises(safe_fs.UntrustedStore, match="writable by group"):
        safe_fs.trusted_store(tmp_path / "mine" / "a" / "b")  # a group-writable, non-sticky ancestor


@needs_root
def test_trusted_store_refuses_another_user_s_link_and_directory(tmp_path):
    os.chmod(tmp_path, 0o1777)
    (tmp_path / "theirs").mkdir()
    os.chown(tmp_path / "theirs", OTHER, OTHER)
    with pytest.raises(safe_fs.UntrustedStore, match=f"theirs is owned by .*uid {OTHER}"):
        safe_fs.trusted_store(tmp_path / "theirs" / "store")
    (tmp_path / "mine").mkdir()
    os.symlink(tmp_path / "mine", tmp_path / "link")
    os.lchown(tmp_path / "link", OTHER, OTHER)
    with pytest.raises(safe_fs.UntrustedStore, match=f"link owned by .*uid {OTHER}"):
        safe_fs.trusted_store(tmp_path / "link")
    fd = safe_fs.open_store_file(tmp_path / "mine", ".x.lock")
    os.close(fd)
    os.symlink("/etc/passwd", tmp_path / "mine" / ".y.lock")
    with pytest.raises(safe_fs.UnsafePath):
        safe_fs.open_store_file(tmp_path / "mine", ".y.lock")


def _theirs(tmp_path):
    """A directory another local user made first in a sticky, world-writable place (as in /var/tmp)."""
    os.chmod(tmp_path, 0o1777)
    theirs = tmp_path / "verifierbench"
    theirs.mkdir(mode=0o755)
    os.chown(theirs, OTHER, OTHER)
    return theirs


@needs_root
def test_the_run_cache_below_another_user_s_directory_is_refused(tmp_path, monkeypatch):
    from verifierbench.sources.swebench import runcache

    theirs = _theirs(tmp_path)
    (theirs / "runs").mkdir(mode=0o700)  # ours, but they can rename it away and put their own in its place
    monkeypatch.setenv(venv_store.ROOT_ENV, str(theirs / "envs"))
    with pytest.raises(UserError, match=f"uid {OTHER}"):
        runcache._open_directory(create=False)


@needs_root
def test_build_memos_below_another_user_s_directory_are_refused(tmp_path, monkeypatch):
    from types import SimpleNamespace

    from verifierbench.sources.swebench import build_memos

    theirs = _theirs(tmp_path)
    memo = theirs / "builds" / "inst-0123456789abcdef.json"
    replayed = SimpleNamespace(task=SimpleNamespace(model_dump=lambda mode: {}), cases=[], dropped=[], exclusion=None)
    with pytest.raises(UserError, match=f"uid {OTHER}"):
        build_memos.remember(memo, replayed)
    assert not memo.exists()


@needs_root
def test_the_python39_root_file_system_below_another_user_s_directory_is_refused(tmp_path, monkeypatch):
    from verifierbench.sources.swebench import python39_rootfs

    theirs = _theirs(tmp_path)
    python = theirs / "rootfs" / python39_rootfs.PYTHON_IN_ROOTFS
    python.parent.mkdir(parents=True)
    python.write_text("#!/bin/sh\n")
    os.chmod(python, 0o755)
    monkeypatch.setenv(python39_rootfs.ROOTFS_ENV, str(theirs / "rootfs"))
    with pytest.raises(UserError, match=f"uid {OTHER}"):
        python39_rootfs.ensure_rootfs(lambda line: None)


@needs_root
def test_the_default_suite_cache_below_another_user_s_directory_is_refused(tmp_path, monkeypatch):
    from verifierbench.suite import resolver as suite_source
    from verifierbench.suite.store import MANIFEST

    theirs = _theirs(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(theirs))
    monkeypatch.delenv("VERIFIERBENCH_SUITE", raising=False)
    monkeypatch.chdir(tmp_path)
    planted = suite_source.cache_dir()
    planted.mkdir(parents=True)
    (planted / MANIFEST).write_text("{}")
    with pytest.raises(UserError, match=f"uid {OTHER}"):
        suite_source.open_suite()


@needs_root
def test_compose_files_below_another_user_s_directory_are_refused(tmp_path, monkeypatch):
    import tempfile

    from verifierbench.sources.swebench import docker_compose

    theirs = _theirs(tmp_path)
    (theirs / f"verifierbench-compose-{os.getuid()}").mkdir(mode=0o700)
    monkeypatch.setattr(tempfile, "tempdir", str(theirs))
    with pytest.raises(UserError, match=f"uid {OTHER}"):
        docker_compose.private_directory()


@needs_root
def test_a_witness_pool_below_another_user_s_directory_is_refused(tmp_path):
    from verifierbench.audit.pool import WitnessPool

    theirs = _theirs(tmp_path)
    (theirs / "v1").mkdir()
    (theirs / "v1" / "t.jsonl").write_text("")
    with pytest.raises(UserError, match=f"uid {OTHER}"):
        WitnessPool(theirs, "v1").load("t", "hash")
