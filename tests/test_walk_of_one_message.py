"""The walk of one message (issue 15): ingest → extraction → consolidation → context enters each
app once, in the layers' order, and never comes back up.

One user message is posted through the real ingest API (Django's test client), extracted and
consolidated by the services the jobs call (in process, synchronously, as ``tests/test_api.py``
does), and read back through GET /api/v1/context. While each step runs, ``sys.setprofile`` sees
every Python call; for each call into the project's own code we take the chain of apps on the
stack (the project's frames only, outermost first, consecutive frames of one app collapsed).
"Enters each app once in order" means every such chain runs strictly down the layers of
``tests/test_architecture.py``: bizmemory (composition) → consolidation → profiles → audit. The
foundation modules (``bizmemory.api``, ``tokens``, ``conf`` …) sit below every app and are left
out of the chains: their base classes are entered by Django on a view's behalf.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

import pytest
from django.urls import get_resolver
from rest_framework.test import APIClient

from consolidation.consolidate import consolidation_run
from consolidation.extraction import extraction_run
from consolidation.models import Session
from tests.test_architecture import _rank

ORDER = ("bizmemory", "consolidation", "profiles", "audit")  # highest layer first


def _app(module: str) -> str | None:
    """The app a module belongs to for the walk, or None (outside the project, the tests, foundation)."""
    rank = _rank(module)
    if rank is None or rank == 0:
        return None
    return module.split(".")[0]


@dataclass
class Walk:
    """What one step entered: every distinct app chain, and every call that went up a layer
    (``caller module.function → callee module.function``)."""

    chains: set[tuple[str, ...]] = field(default_factory=set)
    upward: set[str] = field(default_factory=set)

    def entered(self) -> list[str]:
        return [a for a in ORDER if any(a in c for c in self.chains)]


def _chain(frame) -> tuple[tuple[str, ...], list[str]]:
    """The apps on the stack ending at ``frame`` (outermost first, runs collapsed) and the calls
    on it that went up a layer."""
    frames = []
    while frame is not None:
        app = _app(frame.f_globals.get("__name__", ""))
        if app is not None:
            frames.append((app, f"{frame.f_globals['__name__']}.{frame.f_code.co_name}"))
        frame = frame.f_back
    frames.reverse()
    apps, up = [], []
    for i, (app, where) in enumerate(frames):
        if apps and apps[-1] == app:
            continue
        if apps and ORDER.index(app) < ORDER.index(apps[-1]):
            up.append(f"{frames[i - 1][1]} → {where}")
        apps.append(app)
    return tuple(apps), up


def _walked(step) -> tuple[Walk, object]:
    walk = Walk()

    def profile(frame, event, arg):
        if event == "call" and _app(frame.f_globals.get("__name__", "")) is not None:
            chain, up = _chain(frame)
            walk.chains.add(chain)
            walk.upward.update(up)

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        result = step()
    finally:
        sys.setprofile(previous)
    return walk, result


@pytest.mark.django_db
def test_one_message_enters_each_app_once_down_the_layers(api_keys):
    get_resolver().url_patterns  # import the URLconf first: importing it is not part of the walk
    client = APIClient()
    body = {"user": "walker", "session": "w1", "end_session": True,
            "messages": [{"role": "user", "content": "I'm a data engineer based in Manchester."}]}

    ingest, r = _walked(lambda: client.post("/api/v1/messages", body, format="json", HTTP_X_API_KEY=api_keys["ingest"]))
    assert r.status_code == 201, r.content
    session = Session.objects.get(external_id="w1")
    extraction, run = _walked(lambda: extraction_run(session_id=session.pk, trigger="session_end"))
    assert run.journal_written >= 1
    consolidation, run = _walked(lambda: consolidation_run(user_id=session.user_id, force=True))
    assert run.status == "done"
    context, r = _walked(lambda: client.get("/api/v1/context", {"user": "walker", "agent": "main", "session": "w1"},
                                            HTTP_X_API_KEY=api_keys["read"]))
    assert r.status_code == 200 and "Manchester" in r.json()["text"] and r.json()["message_ids"], r.content

    # Each step enters the apps below the one it starts in, top down.
    assert ingest.entered() == ["bizmemory", "consolidation", "profiles"]  # the sanitizer runs at extraction
    assert extraction.entered() == ["consolidation", "profiles", "audit"]
    assert consolidation.entered() == ["consolidation", "profiles", "audit"]
    # The context of a session is composed in the top layer (bizmemory.context): it asks the
    # pipeline for the session's turns, then hands them to the memory store's read.
    assert context.entered() == ["bizmemory", "consolidation", "profiles", "audit"]
    assert {c[:2] for c in ingest.chains if len(c) > 1} >= {("bizmemory", "consolidation")}
    assert {c[:2] for c in context.chains if len(c) > 1} >= {("bizmemory", "consolidation"), ("bizmemory", "profiles")}
    # … and no chain comes back up a layer.
    assert ingest.upward == extraction.upward == consolidation.upward == set()
    assert context.upward == set()
