"""The AppWorld adapter without AppWorld's data (unreachable here): it names what is missing, and its
case generators turn a solution in the ground truth's form into well-formed drafts."""

from __future__ import annotations

import ast
import random

import pytest

from verifierbench.core.errors import UserError
from verifierbench.sources.appworld import cases, runtime

# The form of AppWorld's compiled ground truth (appworld.verify appends `solution(apis, requester)`).
SOLUTION = '''\
def solution(apis, requester):
    token = apis.spotify.login(username="a@b.c", password="pw")["access_token"]
    songs = apis.spotify.show_song_library(access_token=token, page_index=0, page_limit=20)
    titles = [song["title"] for song in songs][:3]
    apis.supervisor.complete_task(answer=", ".join(titles))
'''


@pytest.fixture(autouse=True)
def fresh_locate():
    runtime.locate.cache_clear()
    yield
    runtime.locate.cache_clear()


def test_unconfigured_appworld_says_how_to_set_it_up(monkeypatch):
    monkeypatch.delenv(runtime.PYTHON_ENV, raising=False)
    with pytest.raises(UserError, match="AppWorld is not configured: .*appworld download data"):
        runtime.locate()


def test_an_interpreter_without_appworld_is_named(monkeypatch):
    monkeypatch.setenv(runtime.PYTHON_ENV, "/usr/bin/python3")
    with pytest.raises(UserError, match="/usr/bin/python3 cannot import appworld .*No module named 'appworld'"):
        runtime.locate()
    monkeypatch.setenv(runtime.PYTHON_ENV, "/nonexistent/python")
    with pytest.raises(UserError, match="is not an executable interpreter"):
        runtime.locate()


def test_drafts_cover_the_categories_and_parse():
    drafts = cases.generate(SOLUTION, random.Random(0))
    by_operator = {d.operator: d for d in drafts}
    assert {d.category for d in drafts} == {"gold", "cosmetic", "overstrict_trap", "base", "partial", "near_miss", "hack"}
    for draft in drafts:
        ast.parse(draft.candidate["code"])  # every candidate is valid Python
    assert by_operator["gold"].candidate["code"] == SOLUTION
    half = by_operator["first_half_then_complete"].candidate["code"]
    assert "show_song_library" in half and "complete_task" in half and "titles = " not in half
    assert "complete_task" not in by_operator["never_completes"].candidate["code"]
    near = [d.candidate["code"] for d in drafts if d.category == "near_miss"]
    assert near and all(code != SOLUTION and ("page_index=1" in code or "page_limit=21" in code or "[:4]" in code) for code in near)
