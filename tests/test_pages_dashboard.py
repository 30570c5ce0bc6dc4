"""Staff dashboard /staff/dashboard/ (issue #7): memories per user, journal backlog, quarantine
per hit type, job failures — numbers and inline SVG bars; refused to everyone else."""

import datetime as dt

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from django_q.models import Task

from audit.models import QuarantineRecord
from consolidation.dashboard import dashboard_figures
from consolidation.models import JournalEntry
from profiles.models import MemoryItem

URL = "/staff/dashboard/"


@pytest.fixture
def staff_client(client, db):
    client.force_login(get_user_model().objects.create_user("reviewer", password="pw", is_staff=True))
    return client


def _items(user, n, t0, *, closed=0):
    for i in range(n + closed):
        MemoryItem.objects.create(user=user, kind="fact", key=f"fact:{i}", value=f"v{i}", valid_from=t0, confirmed_at=t0,
                                  valid_until=t0 if i >= n else None)


def _world(alice, bob, t0):
    _items(alice, 3, t0, closed=2)  # closed items are not current memory
    _items(bob, 1, t0)
    now = timezone.now()
    for age_h, status in [(5, "pending"), (2, "pending"), (30, "consolidated")]:
        JournalEntry.objects.create(user=alice, kind="fact", key="k", value="v", observed_at=now,
                                    created_at=now - dt.timedelta(hours=age_h), status=status)
    for types in ["CN_MOBILE", "CN_MOBILE,CN_RESIDENT_ID", "SENSITIVE_WORD"]:
        QuarantineRecord.objects.create(user=alice, original_encrypted=b"x", hit_types=types, preview="***",
                                        created_at=now, expires_at=now + dt.timedelta(days=30))
    Task.objects.create(id="f1", name="broken-job", func="consolidation.tasks.consolidate_user", success=False,
                        started=now, stopped=now, result="ValueError: boom <b>", attempt_count=1)
    Task.objects.create(id="s1", name="fine-job", func="consolidation.tasks.consolidate_user", success=True,
                        started=now, stopped=now, attempt_count=1)
    return now


def test_it_computes_the_figures(alice, bob, t0):
    now = _world(alice, bob, t0)
    fig = dashboard_figures(now=now)
    assert [(b["label"], b["value"], b["pct"]) for b in fig["memories"]] == [("alice", 3, 100.0), ("bob", 1, 33.3)]
    assert fig["backlog"]["pending"] == 2
    assert fig["backlog"]["oldest_age_seconds"] == 5 * 3600
    assert {b["code"]: b["value"] for b in fig["quarantine"]} == {"CN_MOBILE": 2, "CN_RESIDENT_ID": 1, "SENSITIVE_WORD": 1}
    assert fig["quarantine"][0]["code"] == "CN_MOBILE"
    assert fig["failures"]["count"] == 1
    assert [f.name for f in fig["failures"]["last"]] == ["broken-job"]


def test_it_shows_staff_the_numbers_and_charts(alice, bob, t0, staff_client):
    _world(alice, bob, t0)
    resp = staff_client.get(URL)
    assert resp.status_code == 200
    html = resp.content.decode()
    assert html.count("<svg") == 2  # memories per user, quarantine per type
    assert "<title>alice: 3</title>" in html and "<title>bob: 1</title>" in html
    assert "broken-job" in html and "fine-job" not in html
    assert "ValueError: boom &lt;b&gt;" in html  # job output is escaped
    assert 'class="num">2</td>' in html  # pending journal entries
    assert "5\xa0hours ago" in html  # oldest pending entry
    assert "?type=CN_MOBILE" in html
    assert "mobile phone number" in html  # hit types by their readable name


def test_it_shows_empty_states(staff_client):
    resp = staff_client.get(URL)
    assert resp.status_code == 200
    assert "<svg" not in resp.content.decode()


def test_it_is_translated(staff_client):
    resp = staff_client.get(URL, HTTP_ACCEPT_LANGUAGE="zh-hans")
    html = resp.content.decode()
    assert "每位用户的记忆" in html and "任务失败" in html


def test_it_refuses_non_staff_with_403(alice, client):
    client.force_login(alice)
    assert client.get(URL).status_code == 403


def test_it_sends_anonymous_to_login(client, db):
    resp = client.get(URL)
    assert resp.status_code == 302
    assert "/accounts/login/" in resp["Location"]


def test_it_is_linked_from_staff_home(staff_client):
    html = staff_client.get("/staff/").content.decode()
    assert 'href="/staff/dashboard/"' in html
    assert 'href="/admin/django_q/failure/"' in html
