"""Authorization matrix (issue #8, "Isolation"): every endpoint and page × every actor.

The endpoints are enumerated from the URL resolver (``django.urls.get_resolver()``), never
hand-listed: a new URL pattern without a row in ``ROWS`` fails ``test_it_has_a_row_for_every_endpoint``
and its own matrix cases. Django admin's internal URLs (``admin:*`` except the index) and
django-q's (if any) are skipped generically.

Actors: the owner of the data (signed-in end user), another signed-in user, staff (no
permissions), a memory officer (staff in the "memory officers" group: reveal, delete, release,
restore, audit log), anonymous, an ingest API key, a read API key (all agents) and a read key
limited to another agent.
Each case runs on a fresh database (pages/read endpoints with GET, actions with POST) and
asserts the expected status, never a 500, that no response to an actor not entitled to the
owner's data contains the owner's memory text, and that those actors changed nothing of it.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from audit.models import QuarantineRecord
from consolidation.consolidate import consolidation_run
from consolidation.extraction import extraction_run
from consolidation.models import JournalEntry, Session
from profiles.models import ConfirmationRequest, Snapshot
from profiles.models import MemoryItem, PlatformAPIKey
from tests.health_helpers import heartbeat
from tests.helpers import officer_make, post_turns

ACTORS = ["owner", "other", "staff", "officer", "anonymous", "ingest", "read", "read_other_agent"]
SIGNED_IN = ("owner", "other", "staff", "officer")
NO_LOGIN = ("anonymous", "ingest", "read", "read_other_agent")
SKIPPED_NAMESPACES = ("admin", "django_q")  # their internal URLs; admin:index is kept
KEPT_IN_SKIPPED = {"admin:index"}

# The owner's long-term memory as it is stored (current city, role) and an earlier value.
OWNER_SECRETS = ("Ushuaia", "glassblower", "Reykjavik", "13912345678")
T0 = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.timezone.utc)


# ----------------------------------------------------------------------------- enumeration


def _walk(patterns, prefix: str = "", ns: str | None = None):
    for p in patterns:
        if isinstance(p, URLResolver):
            inner = f"{ns}:{p.namespace}" if ns and p.namespace else (p.namespace or ns)
            yield from _walk(p.url_patterns, prefix + str(p.pattern), inner)
        elif isinstance(p, URLPattern):
            route = prefix + str(p.pattern)
            if p.name:
                key = f"{ns}:{p.name}" if ns else p.name
            else:
                key = f"route:{route}"
            yield key, route, ns


def endpoints() -> dict[str, str]:
    """``{url name (or "route:<pattern>" when unnamed): route}`` of every served pattern, minus
    admin's / django-q's internal URLs."""
    out: dict[str, str] = {}
    for key, route, ns in _walk(get_resolver().url_patterns):
        if ns and ns.split(":")[0] in SKIPPED_NAMESPACES and key not in KEPT_IN_SKIPPED:
            continue
        out.setdefault(key, route)
    return out


# ----------------------------------------------------------------------------- the table


@dataclass
class Row:
    """One endpoint: how to call it and the expected status per actor.

    ``area`` decides who may see the owner's data: ``user`` pages only the owner, ``staff``
    pages (staff/review/admin) the owner's data for staff, ``api`` read endpoints for the
    full read key, ``public`` nobody. ``needle``: a text the entitled actor must get (proves
    the case really reached the owner's data)."""

    method: str
    expect: dict[str, int]
    kwargs: object = None  # callable(world) -> reverse kwargs
    params: object = None  # callable(world) -> query / form / JSON body
    area: str = "public"
    json: bool = False
    needle: str | None = None
    changes_owner: tuple[str, ...] = ()  # actors allowed to change the owner's data here


def _e(**by_actor) -> dict[str, int]:
    missing = set(ACTORS) - set(by_actor)
    assert not missing, missing
    return by_actor


def page(ok=200, *, other=None, staff=None) -> dict[str, int]:
    """Signed-in only: anonymous (and API keys, which pages ignore) → login redirect."""
    staff = ok if staff is None else staff
    return _e(owner=ok, other=ok if other is None else other, staff=staff, officer=staff,
              **{a: 302 for a in NO_LOGIN})


def staff_only(ok=200) -> dict[str, int]:
    return _e(owner=403, other=403, staff=ok, officer=ok, **{a: 302 for a in NO_LOGIN})


def officers_only(ok=200) -> dict[str, int]:
    """Staff pages whose action needs a memory officer's permission: other staff get 403."""
    return {**staff_only(ok), "staff": 403}


def api(scope: str, ok: int, *, limited: int = 403) -> dict[str, int]:
    out = {a: 403 for a in ACTORS}
    out[scope] = ok
    if scope == "read":
        out["read_other_agent"] = limited
    return out


def public(status: int) -> dict[str, int]:
    return {a: status for a in ACTORS}


def _cluster_running() -> dict:
    """A running qcluster's heartbeat, written just before the request (django-q2 keeps one 3 s),
    for the health endpoint's worker check; no query parameters."""
    heartbeat()
    return {}


def _read_q(**extra):
    return lambda w: {"user": "owner", "agent": "main", **extra}


ROWS: dict[str, Row] = {
    "route:": Row("GET", public(302)),
    "my-memory": Row("GET", page(), area="user", needle="glassblower"),
    "memory:home": Row("GET", page(), area="user", needle="glassblower"),
    "memory:item-delete": Row("POST", page(302, other=404, staff=404), kwargs=lambda w: {"pk": w.item_id},
                              area="user", changes_owner=("owner",)),
    "memory:confirmation-confirm": Row("POST", page(302, other=404, staff=404), kwargs=lambda w: {"pk": w.confirmation_id},
                                       area="user", changes_owner=("owner",)),
    "memory:confirmation-reject": Row("POST", page(302, other=404, staff=404), kwargs=lambda w: {"pk": w.confirmation_id},
                                      area="user", changes_owner=("owner",)),
    "memory:clear": Row("GET", page(), area="user"),
    "memory:switches": Row("GET", page(), area="user"),
    "memory:history": Row("GET", page(), area="user"),
    "memory:kept-out": Row("GET", page(), area="user"),
    # No id: each signed-in user deletes their own records only (the owner's stay for the others).
    "memory:kept-out-delete": Row("POST", page(302), area="user", changes_owner=("owner",)),
    "memory:export-json": Row("GET", page(), area="user", needle="glassblower"),
    "memory:export-md": Row("GET", page(), area="user", needle="glassblower"),
    "staff:home": Row("GET", staff_only(), area="staff"),
    "staff:versions": Row("GET", staff_only(), area="staff"),
    "staff:versions-user": Row("GET", staff_only(), kwargs=lambda w: {"user_id": w.owner_id}, area="staff"),
    "staff:version-restore": Row("POST", officers_only(302), kwargs=lambda w: {"user_id": w.owner_id, "version": w.version},
                                 area="staff", changes_owner=("officer",)),
    "staff:snapshot-manual": Row("POST", staff_only(302), kwargs=lambda w: {"user_id": w.owner_id},
                                 area="staff", changes_owner=("staff", "officer")),
    "staff:audit-log": Row("GET", officers_only(), area="staff"),
    "staff:dashboard": Row("GET", staff_only(), area="staff"),
    "audit:quarantine-list": Row("GET", staff_only(), area="staff"),
    "audit:quarantine-detail": Row("GET", staff_only(), kwargs=lambda w: {"pk": w.quarantine_id}, area="staff"),
    # The POST only issues a single-use token (303 to the GET that shows it: tests/test_quarantine_reveal.py).
    "audit:quarantine-reveal": Row("POST", officers_only(303), kwargs=lambda w: {"pk": w.quarantine_id}, area="staff"),
    "audit:quarantine-delete": Row("POST", officers_only(302), kwargs=lambda w: {"pk": w.quarantine_id}, area="staff",
                                   changes_owner=("officer",)),
    "audit:quarantine-false-positive": Row("POST", officers_only(302), kwargs=lambda w: {"pk": w.quarantine_id},
                                           area="staff", changes_owner=("officer",)),
    "set_language": Row("POST", public(302), params=lambda w: {"language": "zh-hans", "next": "/memory/"}),
    "login": Row("GET", public(200)),
    "logout": Row("POST", public(200)),
    "password_change": Row("GET", page()),
    "password_change_done": Row("GET", page()),
    "password_reset": Row("GET", public(200)),
    "password_reset_done": Row("GET", public(200)),
    "password_reset_confirm": Row("GET", public(200), kwargs=lambda w: {"uidb64": "MQ", "token": "set-password"}),
    "password_reset_complete": Row("GET", public(200)),
    "admin:index": Row("GET", _e(owner=302, other=302, staff=200, officer=200, **{a: 302 for a in NO_LOGIN}),
                       area="staff"),
    "api-root": Row("GET", public(200)),
    "api-messages": Row("POST", api("ingest", 201), json=True,
                        params=lambda w: {"user": "owner", "session": "owner-matrix", "agent": "main",
                                          "messages": [{"role": "user", "content": "hello there"}]}),
    "api-session-end": Row("POST", api("ingest", 202), kwargs=lambda w: {"session_id": "owner-s1"}, json=True,
                           params=lambda w: {"user": "owner"}),
    "api-context": Row("GET", api("read", 200), params=_read_q(), area="api", needle="glassblower"),
    "api-memory-search": Row("GET", api("read", 200), params=_read_q(query="glassblower"), area="api", needle="glassblower"),
    "api-memory-get": Row("GET", api("read", 200), params=lambda w: {"user": "owner", "agent": "main", "item_id": w.item_id},
                          area="api", needle="glassblower"),
    "api-memory-items": Row("GET", api("read", 200), params=_read_q(), area="api", needle="glassblower"),
    "api-tools": Row("GET", api("read", 200, limited=200)),  # no user data: a limited key may read the manifest
    "api-health": Row("GET", public(200), params=lambda w: _cluster_running()),  # public: one answer for everyone
    "api-schema": Row("GET", public(200)),
    "api-docs": Row("GET", public(200)),
    "api-redoc": Row("GET", public(200)),
    "api-not-found": Row("GET", public(404)),
}


def entitled(actor: str, area: str) -> bool:
    """May ``actor`` see the owner's memory in a response from an endpoint of ``area``?"""
    return (actor == "owner" and area == "user" or actor in ("staff", "officer") and area == "staff"
            or actor == "read" and area == "api")


# ----------------------------------------------------------------------------- the world


@dataclass
class World:
    owner_id: int
    item_id: int
    confirmation_id: int
    quarantine_id: int
    version: int
    users: dict = field(default_factory=dict)
    keys: dict = field(default_factory=dict)


def _conversation(username: str, turns, t0):
    post_turns(username, f"{username}-s1", turns, start=t0)
    session = Session.objects.get(external_id=f"{username}-s1")
    extraction_run(session_id=session.pk, now=t0, trigger="session_end")
    consolidation_run(user_id=session.user_id, now=t0 + dt.timedelta(minutes=5))
    return session.user


@pytest.fixture(autouse=True)
def _hashing_embedder(settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, EMBEDDER="hashing", EMBEDDER_DIM=256, API_RATE_READ="", API_RATE_INGEST="")


@pytest.fixture
def world(db) -> World:
    """The owner's memory (items, a pending confirmation, two versions, a quarantine record),
    another user's, a staff account and the four key kinds."""
    owner = _conversation("owner", [("user", "I live in Reykjavik and I work as a glassblower."), ("assistant", "Noted."),
                                    ("user", "我的手机是13912345678"), ("assistant", "收到")], T0)
    JournalEntry.objects.create(user=owner, kind="profile", key="city", value="Ushuaia", text="City: Ushuaia",
                                observed_at=T0, created_at=T0 + dt.timedelta(days=1), tokens=4)
    consolidation_run(user_id=owner.pk, now=T0 + dt.timedelta(days=1))  # supersedes Reykjavik, asks to confirm
    other = _conversation("other", [("user", "I live in Valparaiso and I work as a beekeeper."), ("assistant", "Ok.")], T0)
    staff = get_user_model().objects.create_user("staffer", is_staff=True)
    officer = officer_make("officer")
    keys = {}
    for actor, scope, agents in (("ingest", "ingest", []), ("read", "read", []), ("read_other_agent", "read", ["finance"])):
        _, keys[actor] = PlatformAPIKey.objects.create_key(name=f"matrix-{actor}", scope=scope, agents=agents)
    w = World(
        owner_id=owner.pk,
        item_id=MemoryItem.objects.current().get(user=owner, value="glassblower").pk,
        confirmation_id=ConfirmationRequest.objects.get(user=owner, status="pending").pk,
        quarantine_id=QuarantineRecord.objects.get(user=owner).pk,
        version=Snapshot.objects.filter(user=owner).order_by("version").values_list("version", flat=True).first(),
        users={"owner": owner, "other": other, "staff": staff, "officer": officer}, keys=keys,
    )
    assert w.version is not None and Snapshot.objects.filter(user=owner).count() >= 2
    return w


def owner_state(owner_id: int) -> tuple:
    """Everything of the owner an action could change: current items, confirmations, quarantine, versions."""
    return (
        sorted(MemoryItem.objects.current().filter(user_id=owner_id).values_list("pk", "value")),
        sorted(ConfirmationRequest.objects.filter(user_id=owner_id).values_list("pk", "status")),
        sorted(QuarantineRecord.objects.filter(user_id=owner_id).values_list("pk", flat=True)),
        sorted(Snapshot.objects.filter(user_id=owner_id).values_list("version", flat=True)),
    )


def client_for(world: World, actor: str) -> Client:
    headers = {"X-Api-Key": world.keys[actor]} if actor in world.keys else {}
    c = Client(raise_request_exception=False, headers=headers)
    if actor in SIGNED_IN:
        c.force_login(world.users[actor])
    return c


def call(world: World, key: str, route: str, row: Row, actor: str):
    kwargs = row.kwargs(world) if row.kwargs else {}
    url = reverse(key, kwargs=kwargs) if not key.startswith("route:") else "/" + route
    data = row.params(world) if row.params else {}
    c = client_for(world, actor)
    if row.method == "GET":
        return c.get(url, data)
    if row.json:
        return c.post(url, data, content_type="application/json")
    return c.post(url, data)


# ----------------------------------------------------------------------------- tests

ENDPOINTS = endpoints()
CASES = [(key, actor) for key in ENDPOINTS for actor in ACTORS]

# Defects found by the matrix: (url name, actor) → reason. Each stays asserting the correct
# behaviour and is marked xfail(strict=True) until fixed.
KNOWN_DEFECTS: dict[tuple[str, str], str] = {}


def test_it_has_a_row_for_every_endpoint():
    missing = sorted(set(ENDPOINTS) - set(ROWS))
    assert not missing, f"endpoints without an authorization-matrix row: {missing}"
    assert {"api-context", "memory:home", "staff:home", "audit:quarantine-list", "admin:index"} <= set(ENDPOINTS)
    assert not [k for k in ENDPOINTS if k.startswith("admin:") and k != "admin:index"]


def test_it_has_no_stale_rows():
    assert not sorted(set(ROWS) - set(ENDPOINTS)), "rows for endpoints that no longer exist"


@pytest.mark.parametrize(
    "key,actor",
    [pytest.param(k, a, marks=pytest.mark.xfail(strict=True, reason=KNOWN_DEFECTS[(k, a)])) if (k, a) in KNOWN_DEFECTS
     else (k, a) for k, a in CASES],
    ids=[f"{k}|{a}" for k, a in CASES],
)
def test_matrix(world, key, actor):
    row = ROWS.get(key)
    if row is None:
        pytest.fail(f"{key} ({ENDPOINTS[key]}) has no authorization-matrix row")
    before = owner_state(world.owner_id)
    resp = call(world, key, ENDPOINTS[key], row, actor)
    body = b"".join(resp.streaming_content) if resp.streaming else resp.content
    text = body.decode("utf-8", "replace")
    assert resp.status_code < 500, f"{key} as {actor}: {resp.status_code} {text[:300]}"
    assert resp.status_code == row.expect[actor], f"{key} as {actor}: {resp.status_code}, expected {row.expect[actor]}"
    if resp.status_code == 302 and row.expect["anonymous"] == 302 and actor in NO_LOGIN and row.area != "public":
        assert "login" in resp["Location"], resp["Location"]
    if not entitled(actor, row.area):
        leaked = [s for s in OWNER_SECRETS if s in text]
        assert not leaked, f"{key} as {actor} returned the owner's memory: {leaked}"
        if actor not in row.changes_owner:
            assert owner_state(world.owner_id) == before, f"{key} as {actor} changed the owner's memory"
    elif row.needle and resp.status_code == 200:
        assert row.needle in text, f"{key} as {actor}: the owner's data is missing (the case proves nothing)"
    if actor not in row.changes_owner and row.method == "GET":
        assert owner_state(world.owner_id) == before


def test_a_read_key_cannot_reach_the_owners_item_through_another_user(world):
    c = client_for(world, "read")
    resp = c.get("/api/v1/memory", {"user": "other", "agent": "main", "item_id": world.item_id})
    assert resp.status_code == 404 and resp.json()["error"]["field"] == "item_id"
    assert "glassblower" not in resp.content.decode()
    resp = c.get("/api/v1/memory/search", {"user": "other", "agent": "main", "query": "glassblower Ushuaia"})
    assert resp.status_code == 200 and not [s for s in OWNER_SECRETS if s in resp.content.decode()]


def test_the_owner_changes_their_own_memory(world):
    """The positive side of the item-delete row: the owner's POST really deletes (the matrix's
    refusals for others would be meaningless if the action did nothing)."""
    resp = call(world, "memory:item-delete", "", ROWS["memory:item-delete"], "owner")
    assert resp.status_code == 302
    assert not MemoryItem.objects.filter(pk=world.item_id).exists()
