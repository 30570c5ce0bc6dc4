"""End to end with a real qcluster: API ingest → queued extraction → queued consolidation → context."""

import pytest
from rest_framework.test import APIClient

from consolidation.models import Session
from profiles.models import MemoryDocument

from .conftest import wait_for

pytestmark = pytest.mark.e2e


def test_posted_conversation_becomes_memory_through_the_worker(qcluster, api_keys):
    client = APIClient()
    body = {
        "user": "e2e-user",
        "session": "e2e-s1",
        "end_session": True,
        "messages": [
            {"role": "user", "content": "Hi, I'm a data engineer based in Manchester."},
            {"role": "assistant", "content": "Hello!"},
            {"role": "user", "content": "My phone is +86 139-1234-5678, note it down."},
            {"role": "assistant", "content": "Done."},
        ],
    }
    r = client.post("/api/v1/messages", body, format="json", HTTP_X_API_KEY=api_keys["ingest"])
    assert r.status_code == 201, r.content
    session = Session.objects.get(external_id="e2e-s1")

    doc = wait_for(
        lambda: MemoryDocument.objects.filter(user=session.user).exclude(markdown="").first(),
        what="the worker to extract and consolidate",
    )
    assert "Manchester" in doc.markdown
    assert "139" not in doc.markdown
    session.refresh_from_db()
    assert session.watermark == max(session.messages.values_list("id", flat=True))
    from audit.models import QuarantineRecord

    assert QuarantineRecord.objects.filter(user=session.user).count() == 1
    ctx = client.get("/api/v1/context", {"user": "e2e-user", "agent": "main"}, HTTP_X_API_KEY=api_keys["read"]).json()
    assert "Manchester" in ctx["text"]
