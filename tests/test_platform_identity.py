"""Platform user ids are their own namespace, apart from staff logins (issue 14,
``profiles.models.PlatformIdentity``): an ingest key that posts a staff login as ``user`` gets the
answer a fresh id gets, learns nothing about the staff account, and nothing is ever filed under it."""

import datetime as dt
import importlib

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from consolidation.extraction import extraction_run
from consolidation.models import Message, Session
from profiles.models import MemoryItem, MemorySettings, PlatformIdentity
from profiles.services import user_ensure

NOW = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.timezone.utc)
STAFF_SECRET = "Rex the staff dog"


@pytest.fixture
def boss(db):
    """A staff login ``boss`` with a memory item of its own (what a leak would show)."""
    staff = get_user_model().objects.create_user("boss", password="x", is_staff=True)
    MemoryItem.objects.create(user=staff, kind="fact", key="pet", value="Rex", text=STAFF_SECRET,
                              valid_from=NOW, confirmed_at=NOW)
    return staff


def _post(key, user):
    body = {"user": user, "session": "s1", "end_session": True, "messages": [
        {"role": "user", "content": "I moved to Leeds and I am allergic to peanuts.", "message_id": "m-1"},
        {"role": "assistant", "content": "Noted!", "message_id": "m-2"},
    ]}
    return APIClient().post("/api/v1/messages", body, format="json", HTTP_X_API_KEY=key)


def _answer(response):
    """Status and body, with the row ids (the next free rows, which any new message gets) made
    relative to the first one."""
    body = response.json()
    first = min(body["message_ids"])
    body["message_ids"] = [i - first for i in body["message_ids"]]
    for result in body["results"]:
        result["id"] -= first
    return response.status_code, body


def test_it_answers_a_staff_login_as_user_exactly_like_a_fresh_id(api_keys, boss):
    for attempt in ("first", "retry"):  # the retry says "duplicate" for both alike
        staff = _answer(_post(api_keys["ingest"], "boss"))
        fresh = _answer(_post(api_keys["ingest"], "fresh-7f3a"))
        assert staff == fresh, attempt
        assert staff[0] == 201


def test_the_staff_accounts_memory_stays_empty_and_the_platform_id_is_another_user(api_keys, boss):
    assert _post(api_keys["ingest"], "boss").status_code == 201
    for session in Session.objects.all():
        extraction_run(session_id=session.pk, trigger="session_end")
    assert not Session.objects.filter(user=boss).exists() and not Message.objects.filter(session__user=boss).exists()
    assert list(MemoryItem.objects.filter(user=boss).values_list("text", flat=True)) == [STAFF_SECRET]
    assert not MemorySettings.objects.filter(user=boss).exists()
    platform = PlatformIdentity.objects.get(external_id="boss").user
    assert platform != boss and not platform.is_staff and Session.objects.filter(user=platform).count() == 1
    read = APIClient().get("/api/v1/context", {"user": "boss", "agent": "main", "query": "dog pet Rex"},
                           HTTP_X_API_KEY=api_keys["read"])
    assert read.status_code == 200 and STAFF_SECRET not in read.content.decode()


def test_user_ensure_gives_a_platform_id_equal_to_a_login_its_own_account(boss):
    first = user_ensure(external_id="boss")
    assert first != boss and first.username.startswith("platform-") and user_ensure(external_id="boss") == first
    plain = user_ensure(external_id="carol")  # a free username is used as it is
    assert plain.username == "carol" and plain.platform_identity.external_id == "carol"
    boss.refresh_from_db()
    assert boss.is_staff and not PlatformIdentity.objects.filter(user=boss).exists()


def test_the_migration_links_every_non_staff_account_under_its_username_and_no_staff(db):
    fill = importlib.import_module("profiles.migrations.0016_platform_identity_fill").platform_identities_fill
    User = get_user_model()
    legacy = User.objects.create_user("legacy")
    User.objects.create_user("ops", is_staff=True)
    User.objects.create_user("root", is_superuser=True)
    fill(apps, None)
    fill(apps, None)  # again: links nobody twice
    assert list(PlatformIdentity.objects.values_list("external_id", "user")) == [("legacy", legacy.pk)]


def test_snapshot_create_finds_platform_users_never_a_staff_login(boss):
    with pytest.raises(CommandError) as exc:
        call_command("snapshot_create", "--user", "boss")
    assert exc.value.returncode == 2 and "no user" in str(exc.value)


def _staff_state(staff) -> dict:
    """Everything a platform id could have written under the staff account."""
    from audit.models import AuditLog
    from profiles.models import MemoryDocument, MemoryVersion, Snapshot

    return {
        "items": list(MemoryItem.objects.filter(user=staff).values_list("text", "valid_until")),
        "document": list(MemoryDocument.objects.filter(user=staff).values_list("markdown", "version")),
        "versions": list(MemoryVersion.objects.filter(user=staff).values_list("version", flat=True)),
        "snapshots": Snapshot.objects.filter(user=staff).count(),
        "sessions": Session.objects.filter(user=staff).count(),
        "audit": AuditLog.objects.filter(subject_user=staff).count(),
        "settings": MemorySettings.objects.filter(user=staff).count(),
        "password": staff.password,
    }


def test_ingest_pipeline_and_every_read_as_a_staff_login_never_touch_the_staff_account(api_keys, boss):
    """The whole way through: ingest as ``boss``, extraction and consolidation, then every read over
    HTTP and MCP. The platform user ``boss`` gets its own memory; the staff account keeps its own
    untouched, is never read, and still signs in with its own password only."""
    from django.contrib.auth import authenticate
    from django.test import Client

    from consolidation.consolidate import consolidation_run
    from profiles.mcp_server import bound_call
    from profiles.versions import memory_document_refresh

    memory_document_refresh(user_id=boss.pk)
    before = _staff_state(boss)
    assert _post(api_keys["ingest"], "boss").status_code == 201
    platform = PlatformIdentity.objects.get(external_id="boss").user
    for session in Session.objects.filter(user=platform):
        extraction_run(session_id=session.pk, trigger="session_end")
    assert consolidation_run(user_id=platform.pk, force=True).status == "done"
    boss.refresh_from_db()
    assert _staff_state(boss) == before
    assert MemoryItem.objects.filter(user=platform).exists()

    reads = [("/api/v1/context", "", {}), ("/api/v1/memory/search", "memory_search", {"query": "Leeds"}),
             ("/api/v1/memory", "memory_get", {}), ("/api/v1/memory/items", "memory_items", {})]
    for path, tool, args in reads:
        http = APIClient().get(path, {"user": "boss", "agent": "main", **args}, HTTP_X_API_KEY=api_keys["read"])
        answers = [http.content.decode()]
        if tool:
            answers.append(repr(bound_call(tool, args, username="boss", agent_slug="main", api_key=api_keys["read"])))
        for answer in answers:
            assert "Leeds" in answer and STAFF_SECRET not in answer and "Rex" not in answer, (path, answer)

    # Signing in: the staff login is the staff account, with its password only; the platform
    # account made for the id has no usable password, so nobody signs in to it.
    assert authenticate(username="boss", password="x") == boss
    assert not platform.has_usable_password()
    for password in ("", "x"):
        assert authenticate(username=platform.username, password=password) is None
    web = Client()
    assert web.login(username="boss", password="x")
    assert web.session["_auth_user_id"] == str(boss.pk)
