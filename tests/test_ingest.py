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


def test_it_refuses_a_session_of_another_user_and_stores_nothing(db, t0):
    post_turns("u1", "s1", [("user", "hi")], start=t0)
    with pytest.raises(IngestError) as err:
        post_turns("u2", "s1", [("user", "hello")], start=t0)
    assert err.value.field == "session"
    assert Message.objects.count() == 1


def test_it_names_the_bad_field(db, t0):
    with pytest.raises(IngestError) as err:
        messages_ingest(user_id="u1", session_id="s1", messages=[IncomingMessage(role="robot", content="x")], enqueue=False)
    assert err.value.field == "messages[0].role"
    assert not Session.objects.exists()
