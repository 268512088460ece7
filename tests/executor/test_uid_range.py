"""Each harness process claims its own sandbox uid range (issue 22): concurrent harnesses never share a uid."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import root_only
from verifierbench.core.errors import IsolationUnavailable
from verifierbench.executor import uid_range
from verifierbench.executor.uid_range import POOL_BASE, RANGE_SIZE

# A harness stand-in: claims through the same call the executor makes (or, with "idle", as if no sandbox uid ran a
# process, so that the test does not depend on other harnesses on the machine), prints its base, holds it.
HOLDER = textwrap.dedent("""
    import os, sys
    from pathlib import Path
    from verifierbench.executor import uid_range
    if sys.argv[1:] == ["idle"]:
        print(uid_range.claim(Path(os.environ[uid_range.CLAIM_DIR_ENV]), busy_uids=set())[0], flush=True)
    else:
        print(uid_range.base(), flush=True)
    sys.stdin.read()
""")


def start_holder(claims: Path, *args: str) -> tuple[subprocess.Popen[str], int]:
    """A process that claimed a range under `claims` and holds it; (the process, its base)."""
    env = {key: value for key, value in os.environ.items() if key != uid_range.BASE_ENV}
    env[uid_range.CLAIM_DIR_ENV] = str(claims)
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    return proc, int(proc.stdout.readline())


def stop(proc: subprocess.Popen[str]) -> None:
    proc.kill()
    proc.wait()


def test_two_harness_processes_at_once_get_disjoint_ranges(tmp_path):
    first, first_base = start_holder(tmp_path / "claims")
    second, second_base = start_holder(tmp_path / "claims")
    try:
        assert first_base != second_base
        assert abs(first_base - second_base) >= RANGE_SIZE  # the whole ranges, not just the bases, are apart
        assert {first_base, second_base} <= {POOL_BASE + i * RANGE_SIZE for i in range(uid_range.RANGES)}
    finally:
        stop(first)
        stop(second)


def test_a_crashed_holder_s_range_can_be_claimed_again(tmp_path):
    claims = tmp_path / "claims"
    holder, first = start_holder(claims, "idle")
    held, fd = uid_range.claim(claims, busy_uids=set())
    os.close(fd)
    # While held, this process got another range; once the holder is killed (no cleanup runs), its range is free.
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    again, fd = uid_range.claim(claims, busy_uids=set())
    os.close(fd)
    assert again == first == POOL_BASE != held


def test_a_range_whose_uid_still_runs_a_process_is_skipped(tmp_path):
    base, fd = uid_range.claim(tmp_path / "claims", busy_uids={POOL_BASE + 3, POOL_BASE + RANGE_SIZE + 10_001})
    os.close(fd)
    assert base == POOL_BASE + 2 * RANGE_SIZE


def test_every_range_busy_is_refused_with_the_way_out(tmp_path, monkeypatch):
    monkeypatch.setattr(uid_range, "RANGES", 2)
    holders = [start_holder(tmp_path / "claims", "idle")[0] for _ in range(2)]
    try:
        with pytest.raises(IsolationUnavailable, match=uid_range.BASE_ENV):
            uid_range.claim(tmp_path / "claims", busy_uids=set())
    finally:
        for proc in holders:
            stop(proc)


def test_the_environment_pins_a_base_outside_the_pool_without_claiming(tmp_path, monkeypatch):
    monkeypatch.setenv(uid_range.BASE_ENV, "3000000")
    monkeypatch.setenv(uid_range.CLAIM_DIR_ENV, str(tmp_path / "claims"))
    assert uid_range.base() == 3000000  # outside the pool: nothing to reserve
    assert not (tmp_path / "claims").exists()
    monkeypatch.setenv(uid_range.BASE_ENV, "0")
    with pytest.raises(IsolationUnavailable, match="system uids"):
        uid_range.base()


def test_a_claim_directory_others_can_write_is_refused(tmp_path):
    claims = tmp_path / "claims"
    claims.mkdir(mode=0o700)
    os.chmod(claims, 0o777)
    with pytest.raises(IsolationUnavailable, match="cannot write"):
        uid_range.claim(claims, busy_uids=set())


@root_only("slot uids are the harness's own uid unless it runs as root")
def test_slot_and_generation_uids_come_from_the_claimed_range(tmp_path):
    env = {key: value for key, value in os.environ.items() if key != uid_range.BASE_ENV}
    env[uid_range.CLAIM_DIR_ENV] = str(tmp_path / "claims")
    script = ("from verifierbench.executor import uid_range; from verifierbench.executor.isolation import slot_uid; "
              "from verifierbench.sandboxes.vgb_provider import _next_uid; print(uid_range.base(), slot_uid(1), _next_uid())")
    base, slot, generation = map(int, subprocess.run([sys.executable, "-c", script], env=env, check=True,
                                                     capture_output=True, text=True).stdout.split())
    assert (slot, generation) == (base + 1, base + uid_range.GENERATION_OFFSET)


PINNED_HOLDER = textwrap.dedent("""
    import os, sys
    from verifierbench.executor import uid_range
    print(uid_range.base(), flush=True)
    sys.stdin.read()
""")


def start_pinned(claims: Path, pinned: int) -> tuple[subprocess.Popen[str], str]:
    """A process pinned to `pinned`; (the process, its first line: the base, or the error's last line)."""
    env = {**os.environ, uid_range.BASE_ENV: str(pinned), uid_range.CLAIM_DIR_ENV: str(claims)}
    proc = subprocess.Popen([sys.executable, "-c", PINNED_HOLDER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None and proc.stderr is not None
    line = proc.stdout.readline().strip()
    return proc, line or proc.stderr.read().strip().splitlines()[-1]


@root_only("only a root harness claims uid ranges")
def test_a_pinned_base_inside_the_pool_keeps_claiming_harnesses_off_its_uids(tmp_path):
    """Pinned harnesses used to claim nothing, so a claiming harness could take the range a pinned one runs under."""
    claims = tmp_path / "claims"
    pinned_base = POOL_BASE + RANGE_SIZE // 2  # overlaps the first two ranges
    pinned, line = start_pinned(claims, pinned_base)
    same, same_line = start_pinned(claims, pinned_base)  # e.g. the inspect eval a pinned test run starts
    try:
        assert line == same_line == str(pinned_base)
        claimer, claimed = start_holder(claims, "idle")
        try:
            assert claimed >= POOL_BASE + 2 * RANGE_SIZE  # both overlapped ranges skipped
        finally:
            stop(claimer)
    finally:
        stop(pinned)
        stop(same)
    # The other way round: a range a claiming harness holds refuses a pinned base over it.
    claimer, claimed = start_holder(claims, "idle")
    try:
        refused, error = start_pinned(claims, claimed + 5)
        refused.wait()
        assert refused.returncode != 0 and "which a running harness has claimed" in error
    finally:
        stop(claimer)
