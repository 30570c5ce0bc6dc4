"""User enumeration: every read answers an unknown user id, a staff login and a superuser login
byte for byte like a platform user with no memory (``profiles.readers``) — one that never had any,
or whose memory was cleared —, creates nothing, and never answers with a staff account's own memory."""

import datetime as dt

import pytest
from django.contrib.auth import get_user_model

from profiles.models import ContextPack, MemoryItem, MemorySettings, MemoryVersion
from profiles.services import user_ensure
from profiles.versions import memory_document_refresh

NOW = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.timezone.utc)
STAFF_SECRET = "Rex the staff dog"


def _with_memory(user) -> MemoryItem:
    item = MemoryItem.objects.create(user=user, kind="fact", key="pet", value="Rex", text=STAFF_SECRET,
                                     valid_from=NOW, confirmed_at=NOW)
    memory_document_refresh(user_id=user.pk)
    return item


@pytest.fixture
def logins(db):
    """``{"staff": item id, "superuser": item id}``: two non-platform accounts, each with memory."""
    users = {
        "staff": get_user_model().objects.create_user("helpdesk", is_staff=True),
        "superuser": get_user_model().objects.create_user("root", is_staff=True, is_superuser=True),
    }
    return {name: _with_memory(u).pk for name, u in users.items()}


def _cases(item_id: int):
    """``(path, params)`` of every read, with each option that changes the empty answer."""
    return [
        ("/api/v1/context", {}),
        ("/api/v1/context", {"query": "dog", "budget": "50"}),
        ("/api/v1/context", {"budget": "1"}),
        ("/api/v1/context", {"temporary": "true"}),
        ("/api/v1/context", {"session": "s1"}),
        ("/api/v1/context", {"agent": "finance"}),
        ("/api/v1/memory/search", {"query": "dog"}),
        ("/api/v1/memory/search", {"query": "去年的 dog"}),  # a time cue
        ("/api/v1/memory/search", {"query": "dog", "scope": "sessions", "top_k": "3"}),
        ("/api/v1/memory/search", {"query": "dog", "temporary": "true"}),
        ("/api/v1/memory/search", {"query": "dog", "session": "s1"}),
        ("/api/v1/memory", {}),
        ("/api/v1/memory", {"from_line": "1", "to_line": "2"}),
        ("/api/v1/memory", {"item_id": str(item_id)}),  # a staff login's own item: never theirs to read
        ("/api/v1/memory", {"item_id": "999999"}),
        ("/api/v1/memory", {"temporary": "true"}),
        ("/api/v1/memory/items", {}),
        ("/api/v1/memory/items", {"kind": "fact", "key": "pet", "limit": "1"}),
        ("/api/v1/memory/items", {"cursor": "YjE"}),  # a well-formed cursor (below id 1)
        ("/api/v1/memory/items", {"temporary": "true"}),
        ("/api/v1/memory/items", {"session": "s1"}),
    ]


def _read(client, key, path, user, params):
    return client.get(path, {"user": user, "agent": "main", **params}, HTTP_X_API_KEY=key)


def test_unknown_staff_and_superuser_ids_read_exactly_like_a_user_with_no_memory(client, api_keys, logins):
    user_ensure(external_id="empty")  # what ingest makes of a new platform user
    for path, params in _cases(logins["staff"]):
        empty = _read(client, api_keys["read"], path, "empty", params)
        assert empty.status_code in (200, 404), (path, params, empty.content)
        for who in ("ghost", "helpdesk", "root"):
            r = _read(client, api_keys["read"], path, who, params)
            assert (r.status_code, r.content) == (empty.status_code, empty.content), (path, params, who)
            assert r["Content-Type"] == empty["Content-Type"]
            assert STAFF_SECRET not in r.content.decode()


@pytest.mark.parametrize("how", ["clear everything", "delete each entry"])
def test_a_user_whose_memory_was_cleared_reads_exactly_like_an_unknown_id(client, api_keys, alice, how):
    """A known user with empty memory because everything was deleted (the user's "clear
    everything", history kept, or each entry deleted one by one) gets the unknown id's status and
    body on every read — memory_get's ``version`` included (0 for any empty document, not the
    count of past writes), and its own former item id is the same 404. Equal answers, not equal
    timing: timing belongs in benchmarks."""
    from profiles.services import memory_clear_all, memory_item_delete

    item = _with_memory(alice)
    if how == "clear everything":
        memory_clear_all(user=alice)
    else:
        memory_item_delete(user=alice, item_id=item.pk)
    for path, params in _cases(item.pk):
        unknown = _read(client, api_keys["read"], path, "ghost", params)
        cleared = _read(client, api_keys["read"], path, "alice", params)
        assert (cleared.status_code, cleared.content) == (unknown.status_code, unknown.content), (path, params)
        assert STAFF_SECRET not in cleared.content.decode()


def test_the_empty_answers_are_the_expected_ones(client, api_keys):
    """Pins what the comparison above compares: a 200 with nothing, or the 404 naming the field."""
    key = api_keys["read"]
    body = _read(client, key, "/api/v1/context", "ghost", {}).json()
    assert body == {"text": "", "tokens": 0, "budget": 600, "item_ids": [], "message_ids": [], "sections": {},
                    "reason": "no_memory"}
    assert _read(client, key, "/api/v1/context", "ghost", {"temporary": "true"}).json()["reason"] == "temporary_session"
    assert _read(client, key, "/api/v1/memory/search", "ghost", {"query": "去年的 dog"}).json() == {
        "scope": "memory", "reason": "no_memory", "time_cue": True, "hits": []}
    assert _read(client, key, "/api/v1/memory", "ghost", {}).json() == {
        "reason": "no_memory", "text": "", "from_line": 0, "to_line": 0, "total_lines": 0, "version": 0, "item": None}
    r = _read(client, key, "/api/v1/memory", "ghost", {"item_id": "5"})
    assert r.status_code == 404 and r.json()["error"]["field"] == "item_id"
    r = _read(client, key, "/api/v1/memory/search", "ghost", {"query": "x", "session": "s1"})
    assert r.status_code == 404 and r.json()["error"]["field"] == "session"


def test_reads_create_no_account_and_no_row_for_nobody(client, api_keys, logins):
    tables = (get_user_model(), MemorySettings, ContextPack, MemoryVersion)
    before = [m.objects.count() for m in tables]
    for path, params in _cases(logins["staff"]):
        for who in ("ghost", "helpdesk", "root"):
            _read(client, api_keys["read"], path, who, params)
    assert [m.objects.count() for m in tables] == before
    assert not get_user_model().objects.filter(username="ghost").exists()


def test_a_platform_user_with_memory_is_still_answered(client, api_keys, alice):
    _with_memory(alice)
    assert STAFF_SECRET in _read(client, api_keys["read"], "/api/v1/context", "alice", {}).json()["text"]
    hits = _read(client, api_keys["read"], "/api/v1/memory/search", "alice", {"query": "Rex dog"}).json()["hits"]
    assert [h["text"] for h in hits] == [STAFF_SECRET]


def test_a_staff_login_loses_its_answers_when_promoted(client, api_keys, alice):
    """An account that was a platform user and became staff is from then on answered as nobody."""
    _with_memory(alice)
    alice.is_staff = True
    alice.save(update_fields=["is_staff"])
    body = _read(client, api_keys["read"], "/api/v1/context", "alice", {}).json()
    assert body["reason"] == "no_memory" and STAFF_SECRET not in body["text"]
