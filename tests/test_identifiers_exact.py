"""Platform identifiers are byte-exact and never trimmed (issue 14). On MariaDB's default
collation "alice", "Alice", "ALICE" and "alice " were one account and "jose" was "josé"; these
run on every database and are the regression on MariaDB (``DATABASE_URL=mysql://…``)."""

import unicodedata

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from consolidation.models import Message, Session
from profiles.models import Agent

DISTINCT = ["alice", "Alice", "ALICE", "jose", "josé", unicodedata.normalize("NFD", "josé")]


def _post(key, user, session="s1", text=None, agent="main"):
    body = {"user": user, "session": session, "agent": agent,
            "messages": [{"role": "user", "content": text or f"I am {user!r}"}]}
    return APIClient().post("/api/v1/messages", body, format="json", HTTP_X_API_KEY=key)


def _context(key, user, session="s1"):
    return APIClient().get("/api/v1/context", {"user": user, "agent": "main", "session": session, "budget": 2000},
                           HTTP_X_API_KEY=key)


def test_ids_differing_in_case_or_accents_are_distinct_users_who_never_read_each_other(api_keys):
    for i, user in enumerate(DISTINCT):
        r = _post(api_keys["ingest"], user, text=f"secret number {i} of this user")
        assert r.status_code == 201, (user, r.content)
    users = get_user_model().objects.filter(username__in=DISTINCT)
    assert sorted(users.values_list("username", flat=True)) == sorted(DISTINCT)
    assert Session.objects.filter(external_id="s1").count() == len(DISTINCT)
    for i, user in enumerate(DISTINCT):
        body = _context(api_keys["read"], user).json()
        shown = [j for j in range(len(DISTINCT)) if f"secret number {j} " in body["text"]]
        assert shown == [i], (user, body["text"])
        assert Message.objects.filter(session__user__username=user).count() == 1


@pytest.mark.parametrize("bad", ["alice ", " alice", "alice\n", "\u3000alice", "alice\u00a0"])
def test_a_user_id_with_surrounding_whitespace_is_a_400_and_never_reaches_alices_memory(api_keys, bad):
    assert _post(api_keys["ingest"], "alice", text="alice's own turn").status_code == 201
    r = _post(api_keys["ingest"], bad, text="an impostor's turn")
    assert r.status_code == 400 and r.json()["error"]["field"] == "user", r.content
    assert Message.objects.count() == 1 and get_user_model().objects.count() == 1
    r = _context(api_keys["read"], bad)
    assert r.status_code == 400 and r.json()["error"]["field"] == "user"
    assert "alice's own turn" not in r.content.decode()


@pytest.mark.parametrize("bad", ["s1 ", " s1", "s\u30001"])
def test_a_session_id_with_whitespace_is_a_400_never_trimmed(api_keys, bad):
    assert _post(api_keys["ingest"], "alice", session="s1").status_code == 201
    r = _post(api_keys["ingest"], "alice", session=bad)
    assert r.status_code == 400 and r.json()["error"]["field"] == "session"
    assert Session.objects.count() == 1 and Message.objects.count() == 1


def test_session_ids_and_agent_slugs_differing_in_case_are_distinct(api_keys):
    assert _post(api_keys["ingest"], "alice", session="s1").status_code == 201
    assert _post(api_keys["ingest"], "alice", session="S1").status_code == 201
    assert sorted(Session.objects.values_list("external_id", flat=True)) == ["S1", "s1"]
    # an agent or expert slug is exact too: "Main" is not the entry agent "main"
    assert _post(api_keys["ingest"], "bob", session="b1", agent="Main").status_code == 201
    assert sorted(Agent.objects.filter(slug__in=["main", "Main", "MAIN"]).values_list("slug", flat=True)) == ["Main", "main"]
    assert Session.objects.get(user__username="bob").agent.slug == "Main"
    assert Agent.objects.get(slug="main").is_entry and not Agent.objects.get(slug="Main").is_entry


def test_the_schema_states_the_rule_for_user_and_session_ids(db):
    schema = APIClient().get("/api/v1/schema/", HTTP_ACCEPT="application/json").json()
    assert "never trimmed" in schema["info"]["description"] and "more than once" in schema["info"]["description"]
    messages_in = schema["components"]["schemas"]["MessagesIn"]["properties"]
    assert "never trimmed" in messages_in["user"]["description"]
    assert "Scoped to the user" in messages_in["session"]["description"]
    for path in ("/api/v1/context", "/api/v1/memory/search", "/api/v1/memory"):
        params = {p["name"]: p for p in schema["paths"][path]["get"]["parameters"]}
        assert "never trimmed" in params["user"]["description"], path
        assert "per user" in params["session"]["description"], path
