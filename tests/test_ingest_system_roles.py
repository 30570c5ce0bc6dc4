"""Issue 17: ``system`` and ``developer`` turns are stored, but never a memory source, never
indexed for past-session search, never quoted into a context and never shown to the user."""

import datetime as dt

import pytest
from django.contrib import admin
from rest_framework.test import APIClient

from consolidation.admin import MessageAdmin
from consolidation.extraction import _attribute_experts, extraction_run
from consolidation.models import INSTRUCTION_ROLES, JournalEntry, Message, MessageRole, Session
from profiles.search import memory_search
from consolidation.session_index import session_index_refresh
from profiles.services import memory_settings_update

from .helpers import post_turns

SYSTEM = "I am a data engineer in Toronto."
DEVELOPER = "I live in Lisbon and I prefer very short answers."


@pytest.fixture
def client():
    return APIClient()


def _post(client, key, body):
    return client.post("/api/v1/messages", body, format="json", HTTP_X_API_KEY=key)


def _batch(session="s-sys", user="alice", user_text="Could you check the Toronto office opening hours?"):
    return {
        "user": user,
        "session": session,
        "messages": [
            {"role": "system", "content": SYSTEM},
            {"role": "developer", "content": DEVELOPER},
            {"role": "user", "content": user_text},
            {"role": "assistant", "content": "The Toronto office opens at nine."},
        ],
    }


def _journal_text(user) -> str:
    return " ".join(f"{j.key}={j.value} {j.text}" for j in JournalEntry.objects.filter(user__username=user))


def test_a_batch_with_system_and_developer_turns_is_stored(client, api_keys):
    r = _post(client, api_keys["ingest"], _batch())
    assert r.status_code == 201, r.content
    body = r.json()
    assert [x["status"] for x in body["results"]] == ["stored"] * 4
    rows = list(Message.objects.filter(session__external_id="s-sys").order_by("id"))
    assert [m.role for m in rows] == ["system", "developer", "user", "assistant"]
    assert [m.pk for m in rows] == body["message_ids"]
    assert rows[0].content == SYSTEM and rows[1].content == DEVELOPER
    assert {MessageRole.SYSTEM, MessageRole.DEVELOPER} == INSTRUCTION_ROLES


def test_an_unknown_role_is_still_a_400_naming_the_field(client, api_keys):
    body = _batch()
    body["messages"][1]["role"] = "narrator"
    r = _post(client, api_keys["ingest"], body)
    assert r.status_code == 400
    assert r.json()["error"]["field"] == "messages[1].role"
    assert not Session.objects.exists() and not Message.objects.exists()


def test_the_openapi_schema_lists_the_roles(client):
    r = client.get("/api/v1/schema/", HTTP_ACCEPT="application/json")
    assert r.status_code == 200
    text = r.content.decode()
    for role in ("system", "developer", "user", "assistant", "tool"):
        assert f'"{role}"' in text or f"- {role}" in text


def test_system_content_never_becomes_a_journal_entry(client, api_keys):
    assert _post(client, api_keys["ingest"], _batch()).status_code == 201
    session = Session.objects.get(external_id="s-sys")
    res = extraction_run(session_id=session.pk, trigger="session_end")
    assert res.status == "done"
    text = _journal_text("alice")
    assert "engineer" not in text and "Lisbon" not in text and "short" not in text
    roles = dict(Message.objects.filter(session=session).values_list("role", "memory_source"))
    assert roles["system"] is False and roles["developer"] is False
    assert roles["user"] is True  # the conversation itself was read
    # The same sentence from the user is memory: the role alone kept it out above.
    body = _batch(session="s-user", user="bob", user_text=SYSTEM)
    assert _post(client, api_keys["ingest"], body).status_code == 201
    extraction_run(session_id=Session.objects.get(external_id="s-user").pk, trigger="session_end")
    assert "Toronto" in _journal_text("bob")


def test_a_system_turn_between_user_and_assistant_does_not_answer_the_user(alice, t0):
    # hr answers; hr is excluded from extraction, so the user turn must not be read. Were the
    # system turn taken as the answer (entry agent), the turn would become memory.
    memory_settings_update(user=alice, experts_excluded_from_extraction=["hr"])
    session, stored = post_turns(
        "alice", "s-hr", [("user", SYSTEM), ("system", "Route this to HR."), ("developer", "Be brief."),
                          ("assistant", "Noted.", "hr")], start=t0,
    )
    answered = _attribute_experts(list(Message.objects.filter(session=session).select_related("expert").order_by("id")))
    assert answered == {stored[0].pk: "hr"}
    extraction_run(session_id=session.pk, now=t0 + dt.timedelta(minutes=5), trigger="session_end")
    assert not JournalEntry.objects.filter(user=alice).exists()


def test_a_trailing_system_turn_leaves_the_user_turn_unanswered(alice, t0):
    session, stored = post_turns("alice", "s-wait", [("user", SYSTEM), ("system", "Think first.")], start=t0)
    answered = _attribute_experts(list(Message.objects.filter(session=session).order_by("id")))
    assert answered == {stored[0].pk: False}
    # Not final: the unanswered user turn waits for its answer (its expert is not known yet).
    res = extraction_run(session_id=session.pk, now=t0 + dt.timedelta(minutes=2), trigger="ingest")
    assert res.watermark < stored[0].pk
    assert not JournalEntry.objects.filter(user=alice).exists()


def test_sessions_search_never_returns_system_or_developer_turns(client, api_keys, alice):
    now = dt.datetime.now(dt.timezone.utc)
    assert _post(client, api_keys["ingest"], _batch()).status_code == 201
    session = Session.objects.get(external_id="s-sys")
    extraction_run(session_id=session.pk, now=now, trigger="session_end")
    instr = set(Message.objects.filter(session=session, role__in=INSTRUCTION_ROLES).values_list("pk", flat=True))
    # Defence in depth: even a row wrongly marked a source is never indexed.
    Message.objects.filter(pk__in=instr).update(memory_source=True)
    session_index_refresh(user_id=alice.pk)
    for query in ("data engineer Toronto", "Lisbon short answers", "Toronto"):
        res = memory_search(user=alice, agent_slug="main", query=query, scope="sessions")
        assert not {h.id for h in res.hits} & instr
        assert all(h.kind in ("user", "assistant") for h in res.hits)
        assert "Lisbon" not in " ".join(h.text for h in res.hits)
    assert memory_search(user=alice, agent_slug="main", query="Toronto office", scope="sessions").hits
    r = client.get("/api/v1/memory/search", {"user": "alice", "agent": "main", "query": "data engineer Lisbon",
                                             "scope": "sessions"}, HTTP_X_API_KEY=api_keys["read"])
    assert r.status_code == 200
    assert "Lisbon" not in r.content.decode() and "engineer in Toronto" not in r.content.decode()


def test_context_with_the_session_never_quotes_system_or_developer_turns(client, api_keys):
    assert _post(client, api_keys["ingest"], _batch()).status_code == 201
    r = client.get("/api/v1/context", {"user": "alice", "agent": "main", "session": "s-sys", "budget": 2000},
                   HTTP_X_API_KEY=api_keys["read"])
    assert r.status_code == 200, r.content
    text = r.json()["text"]
    assert "Toronto office opening hours" in text  # the conversation is there
    assert SYSTEM not in text and "data engineer" not in text and "Lisbon" not in text
    assert "system:" not in text and "developer:" not in text


def test_the_admin_does_not_show_a_system_prompt(alice, t0):
    _, stored = post_turns("alice", "s-adm", [("system", SYSTEM), ("user", "hello there")], start=t0)
    shown = MessageAdmin(Message, admin.site).content_masked(stored[0])
    assert "Toronto" not in shown and "system" in shown
    assert MessageAdmin(Message, admin.site).content_masked(stored[1]) == "hello there"
