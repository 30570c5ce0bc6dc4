import pytest

from consolidation.ingest import IncomingMessage, IngestError, messages_ingest
from consolidation.models import Message, Session

from .helpers import post_turns


def test_it_creates_user_session_and_messages_in_order(db, t0):
    session, stored = post_turns("u1", "s1", [("user", "你好"), ("assistant", "您好", "finance")], start=t0)
    assert session.user.username == "u1"
    assert [m.role for m in Message.objects.filter(session=session).order_by("id")] == ["user", "assistant"]
    assert stored[1].expert.slug == "finance"
    assert session.watermark == 0


def test_two_users_may_use_the_same_session_id_and_their_turns_never_mix(db, t0):
    s1, _ = post_turns("u1", "s1", [("user", "hi")], start=t0)
    s2, _ = post_turns("u2", "s1", [("user", "hello")], start=t0)  # not "belongs to another user"
    again, _ = post_turns("u1", "s1", [("user", "still me")], start=t0)
    assert s1.pk != s2.pk and again.pk == s1.pk
    assert list(s1.messages.order_by("id").values_list("content", flat=True)) == ["hi", "still me"]
    assert list(s2.messages.values_list("content", flat=True)) == ["hello"]
    assert (s1.user.username, s2.user.username) == ("u1", "u2")


@pytest.mark.parametrize("bad", ["bob ", " bob", "bob\n", "\u3000bob"])
def test_a_user_id_with_surrounding_whitespace_is_refused_never_trimmed(db, t0, bad):
    post_turns("bob", "s1", [("user", "hi")], start=t0)
    with pytest.raises(IngestError) as err:
        post_turns(bad, "s2", [("user", "hello")], start=t0)
    assert err.value.field == "user"
    assert Message.objects.count() == 1 and Session.objects.count() == 1


def test_it_names_the_bad_field(db, t0):
    with pytest.raises(IngestError) as err:
        messages_ingest(user_id="u1", session_id="s1", messages=[IncomingMessage(role="robot", content="x")], enqueue=False)
    assert err.value.field == "messages[0].role"
    assert not Session.objects.exists()


# --- Idempotent ingest: the platform's message_id ---------------------------------------

import threading  # noqa: E402

from django.db import connection  # noqa: E402
from rest_framework.test import APIClient  # noqa: E402

from consolidation.ingest import IngestConflict, messages_ingest_outcome  # noqa: E402


def _body(session="s1", messages=None, user="u1"):
    return {"user": user, "session": session, "messages": messages or [
        {"role": "user", "content": "I moved to Leeds.", "message_id": "m-1"},
        {"role": "assistant", "content": "Noted!", "expert": "travel", "message_id": "m-2"},
    ]}


def _post(api_keys, body):
    return APIClient().post("/api/v1/messages", body, format="json", HTTP_X_API_KEY=api_keys["ingest"])


def _rows(session="s1"):
    return list(Message.objects.filter(session__external_id=session).order_by("id").values_list("external_id", "content"))


def test_a_retried_post_stores_each_message_once_and_says_duplicate(api_keys):
    first = _post(api_keys, _body())
    assert first.status_code == 201, first.content
    assert [r["status"] for r in first.json()["results"]] == ["stored", "stored"]
    again = _post(api_keys, _body())
    assert again.status_code == 201, again.content
    assert Message.objects.count() == 2
    assert [r["status"] for r in again.json()["results"]] == ["duplicate", "duplicate"]
    # The same row ids as the first answer, in the existing message_ids field and in results.
    assert again.json()["message_ids"] == first.json()["message_ids"]
    assert [(r["id"], r["message_id"]) for r in again.json()["results"]] == list(
        zip(first.json()["message_ids"], ["m-1", "m-2"])
    )


def test_a_partly_retried_batch_stores_only_the_new_messages_in_order(api_keys):
    _post(api_keys, _body(messages=[{"role": "user", "content": "one", "message_id": "a"}]))
    body = _body(messages=[
        {"role": "user", "content": "zero", "message_id": "z"},
        {"role": "user", "content": "one", "message_id": "a"},
        {"role": "assistant", "content": "two", "message_id": "b"},
        {"role": "assistant", "content": "no id"},
    ])
    r = _post(api_keys, body)
    assert r.status_code == 201, r.content
    assert [x["status"] for x in r.json()["results"]] == ["stored", "duplicate", "stored", "stored"]
    assert _rows() == [("a", "one"), ("z", "zero"), ("b", "two"), (None, "no id")]
    ids = r.json()["message_ids"]
    assert ids[1] == Message.objects.get(external_id="a").pk and ids[0] < ids[2] < ids[3]


def test_the_same_id_with_other_content_is_a_409_naming_it_and_stores_nothing_of_the_batch(api_keys):
    _post(api_keys, _body())
    before = _rows()
    conflicting = _body(messages=[
        {"role": "user", "content": "a new message", "message_id": "m-3"},
        {"role": "user", "content": "I moved to York.", "message_id": "m-1"},
    ])
    r = _post(api_keys, conflicting)
    assert r.status_code == 409, r.content
    assert r.json()["error"]["code"] == "conflict"
    assert r.json()["error"]["field"] == "messages[1].message_id"
    assert _rows() == before
    # Another expert on the same content is a different message too.
    other_expert = _body(messages=[{"role": "assistant", "content": "Noted!", "expert": "finance", "message_id": "m-2"}])
    r = _post(api_keys, other_expert)
    assert r.status_code == 409 and r.json()["error"]["field"] == "messages[0].message_id"
    # On a new session the conflict also leaves no session, user or message behind.
    r = _post(api_keys, _body(session="s-new", user="u-new", messages=[
        {"role": "user", "content": "x", "message_id": "d"}, {"role": "user", "content": "y", "message_id": "d"}]))
    assert r.status_code == 409 and r.json()["error"]["field"] == "messages[1].message_id"
    assert not Session.objects.filter(external_id="s-new").exists()
    assert _rows() == before


def test_the_same_id_twice_in_one_batch_with_the_same_content_is_stored_once(api_keys):
    msg = {"role": "user", "content": "hello", "message_id": "dup"}
    r = _post(api_keys, _body(messages=[msg, msg]))
    assert r.status_code == 201, r.content
    assert [x["status"] for x in r.json()["results"]] == ["stored", "duplicate"]
    assert _rows() == [("dup", "hello")]


def test_message_ids_are_unique_per_session_only_and_compared_exactly(api_keys):
    assert _post(api_keys, _body(session="s1")).status_code == 201
    r = _post(api_keys, _body(session="s2"))
    assert r.status_code == 201 and [x["status"] for x in r.json()["results"]] == ["stored", "stored"]
    assert len(_rows("s1")) == 2 and len(_rows("s2")) == 2
    # Ids differing only in case or a trailing space are different ids on every database.
    r = _post(api_keys, _body(session="s3", messages=[
        {"role": "user", "content": "1", "message_id": "Ab"},
        {"role": "user", "content": "2", "message_id": "ab"},
        {"role": "user", "content": "3", "message_id": "ab "},
    ]))
    assert r.status_code == 201, r.content
    assert _rows("s3") == [("Ab", "1"), ("ab", "2"), ("ab ", "3")]


def test_messages_without_ids_are_stored_every_time_as_before(api_keys):
    body = _body(messages=[{"role": "user", "content": "hi"}])
    assert [x["message_id"] for x in _post(api_keys, body).json()["results"]] == [None]
    assert _post(api_keys, body).json()["results"][0]["status"] == "stored"
    assert _rows() == [(None, "hi"), (None, "hi")]


@pytest.mark.parametrize("bad", ["x" * 129, "", ["a"]])
def test_a_bad_message_id_is_a_400_naming_the_field(api_keys, bad):
    r = _post(api_keys, _body(messages=[{"role": "user", "content": "ok", "message_id": "fine"},
                                        {"role": "user", "content": "hi", "message_id": bad}]))
    assert r.status_code == 400, r.content
    assert r.json()["error"]["field"] == "messages[1].message_id"
    assert not Message.objects.exists()
    assert _post(api_keys, _body(messages=[{"role": "user", "content": "hi", "message_id": "x" * 128}])).status_code == 201


def test_the_service_checks_message_ids_for_callers_other_than_the_api(db, t0):
    with pytest.raises(IngestError) as err:
        messages_ingest(user_id="u1", session_id="s1", enqueue=False, now=t0,
                        messages=[IncomingMessage(role="user", content="x", message_id="y" * 129)])
    assert err.value.field == "messages[0].message_id"
    messages_ingest(user_id="u1", session_id="s1", enqueue=False, now=t0,
                    messages=[IncomingMessage(role="user", content="x", message_id="k")])
    with pytest.raises(IngestConflict) as err:
        messages_ingest(user_id="u1", session_id="s1", enqueue=False, now=t0,
                        messages=[IncomingMessage(role="assistant", content="x", message_id="k")])
    assert err.value.field == "messages[0].message_id"
    # messages_ingest returns only what it stored.
    _, stored = messages_ingest(user_id="u1", session_id="s1", enqueue=False, now=t0, messages=[
        IncomingMessage(role="user", content="x", message_id="k"), IncomingMessage(role="user", content="z", message_id="l")])
    assert [m.external_id for m in stored] == ["l"]


@pytest.mark.django_db(transaction=True)
def test_two_connections_posting_the_same_batch_at_once_store_one_copy(t0):
    """Real concurrency: two threads (two database connections) race on new and existing sessions."""
    batch = [IncomingMessage(role="user", content=f"turn {i}", message_id=f"id-{i}") for i in range(5)]
    for round_ in range(4):
        session_id = f"race-{round_ - round_ % 2}"  # a new session, then the same one again
        ids = [f"r{round_}-{m.message_id}" for m in batch]
        msgs = [IncomingMessage(role=m.role, content=m.content, message_id=i) for m, i in zip(batch, ids)]
        barrier = threading.Barrier(2)
        results, errors = [], []

        def post():
            try:
                barrier.wait(10)
                results.append(messages_ingest_outcome(user_id="racer", session_id=session_id, messages=msgs,
                                                       now=t0, enqueue=False).statuses)
            except Exception as exc:  # reported below
                errors.append(exc)
            finally:
                connection.close()

        threads = [threading.Thread(target=post) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert not errors, errors
        assert sorted(results) == [["duplicate"] * 5, ["stored"] * 5]
        rows = Message.objects.filter(external_id__in=ids).order_by("id")
        assert [m.external_id for m in rows] == ids


# --- Ingest input the platform must not get away with ---------------------------------------

def test_a_created_at_in_the_future_is_a_400_naming_it_and_stores_nothing(api_keys):
    import datetime as dt

    from django.utils import timezone

    soon = (timezone.now() + dt.timedelta(minutes=1)).isoformat()  # within the clock skew allowance
    far = "9999-12-31T23:59:59Z"
    body = {"user": "u1", "session": "s-future", "messages": [
        {"role": "user", "content": "hi", "created_at": soon}, {"role": "user", "content": "later", "created_at": far},
    ]}
    r = _post(api_keys, body)
    assert r.status_code == 400 and r.json()["error"]["field"] == "messages[1].created_at"
    assert not Message.objects.exists()
    body["messages"].pop()
    assert _post(api_keys, body).status_code == 201


def test_a_session_id_with_a_slash_or_whitespace_is_a_400(api_keys):
    for bad in ("a/b", "a b", "tab\there"):
        r = _post(api_keys, _body(session=bad))
        assert r.status_code == 400 and r.json()["error"]["field"] == "session", bad
    assert not Session.objects.exists()


def test_an_ingest_key_limited_to_some_agents_may_not_post_or_end_for_others(db):
    from profiles.models import PlatformAPIKey

    _, key = PlatformAPIKey.objects.create_key(name="main-only", scope="ingest", agents=["main"])
    c = APIClient()
    r = c.post("/api/v1/messages", {**_body(session="s-sales"), "agent": "sales"}, format="json", HTTP_X_API_KEY=key)
    assert r.status_code == 403 and r.json()["error"]["field"] == "agent"
    assert not Session.objects.exists()
    assert c.post("/api/v1/messages", _body(session="s-main"), format="json", HTTP_X_API_KEY=key).status_code == 201
    post_turns("u1", "s-other", [("user", "hi")], start=Session.objects.get().started_at, agent="sales")
    r = c.post("/api/v1/sessions/s-other/end", {"user": "u1"}, format="json", HTTP_X_API_KEY=key)
    assert r.status_code == 403 and r.json()["error"]["field"] == "agent"
    assert Session.objects.get(external_id="s-other").ended_at is None


def test_conversations_are_never_filed_under_a_platform_account_made_staff(api_keys):
    """Platform ids are their own namespace (a staff login of the same name is another user:
    tests/test_platform_identity.py); an operator who makes a platform user's account staff stops
    its ingest."""
    from profiles.services import user_ensure

    user = user_ensure(external_id="boss")
    user.is_staff = True
    user.save(update_fields=["is_staff"])
    r = _post(api_keys, _body(user="boss"))
    assert r.status_code == 400 and r.json()["error"]["field"] == "user"
    assert not Message.objects.exists()
