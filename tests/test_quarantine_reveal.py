"""/review/<id>/reveal: post/redirect/get with a single-use reveal token (issue 17, "Reveal renders
at the POST URL"). The POST issues the token; the GET it redirects to shows the original once. With
the tokens' cache unreachable (the real Redis cache pointed at a closed port) it fails closed: a 503
page that says so, nothing revealed, the attempt audited as ``quarantine.reveal_failed``."""

import os
import socket
import time
import types
from urllib.parse import parse_qs, urlsplit

import pytest
from django.core import signing
from django.test import Client, override_settings
from django.urls import reverse

from audit import services
from audit.models import AuditLog
from audit.sanitizer import analyze
from audit.services import quarantine_file, sensitive_words_active
from bizmemory.settings import cache_config
from profiles.services import user_ensure
from tests.helpers import officer_make

PHONE = "13912345678"


def _file(username: str, text: str, now):
    user = user_ensure(external_id=username)
    return quarantine_file(user=user, session_id=None, message_ids=[], original=text,
                           hits=analyze(text, sensitive_words=sensitive_words_active()), now=now)


@pytest.fixture
def rec(db, t0):
    return _file("alice", f"我的手机是{PHONE}", t0)


def _client(username: str) -> Client:
    c = Client()
    c.force_login(officer_make(username))
    return c


@pytest.fixture
def officer(db):
    return _client("reviewer")


def _reveals(rec) -> int:
    return AuditLog.objects.filter(action="quarantine.revealed", target_id=str(rec.pk)).count()


def _issue(client, rec) -> str:
    """POST the reveal; returns the URL it redirects to (the token's GET)."""
    resp = client.post(reverse("audit:quarantine-reveal", args=[rec.pk]))
    assert resp.status_code == 303
    assert resp["Location"].startswith(reverse("audit:quarantine-reveal", args=[rec.pk]) + "?token=")
    assert PHONE not in resp.content.decode()
    return resp["Location"]


def test_it_redirects_the_post_and_shows_the_original_once_on_the_get(officer, rec):
    url = _issue(officer, rec)
    assert _reveals(rec) == 0  # nothing decrypted yet: the POST only issued the token
    resp = officer.get(url)
    assert resp.status_code == 200 and PHONE in resp.content.decode()
    assert "no-store" in resp["Cache-Control"]
    assert _reveals(rec) == 1


def test_one_post_is_one_audit_record_and_a_refresh_reveals_nothing(officer, rec):
    resp = officer.post(reverse("audit:quarantine-reveal", args=[rec.pk]), follow=True)
    assert resp.status_code == 200 and PHONE in resp.content.decode()
    assert _reveals(rec) == 1
    url = resp.redirect_chain[-1][0]
    for _ in range(2):  # the browser's refresh, twice
        again = officer.get(url)
        html = again.content.decode()
        assert again.status_code == 410 and PHONE not in html
        assert "already shown once" in html and "no-store" in again["Cache-Control"]
    assert _reveals(rec) == 1
    # A new POST is a new, audited reveal.
    assert PHONE in officer.post(reverse("audit:quarantine-reveal", args=[rec.pk]), follow=True).content.decode()
    assert _reveals(rec) == 2


def test_another_staff_account_cannot_use_the_token_and_does_not_spend_it(officer, rec):
    url = _issue(officer, rec)
    other = _client("second-officer")  # holds the reveal permission itself
    resp = other.get(url)
    assert resp.status_code == 403 and PHONE not in resp.content.decode()
    assert "another staff account" in resp.content.decode()
    assert _reveals(rec) == 0
    assert PHONE in officer.get(url).content.decode()
    assert _reveals(rec) == 1


def test_an_expired_token_is_refused(officer, rec, monkeypatch):
    url = _issue(officer, rec)
    later = time.time() + services.REVEAL_TOKEN_SECONDS + 1
    monkeypatch.setattr(signing, "time", types.SimpleNamespace(time=lambda: later))
    resp = officer.get(url)
    assert resp.status_code == 410 and PHONE not in resp.content.decode()
    assert "expired" in resp.content.decode()
    assert _reveals(rec) == 0


def test_a_token_for_another_record_or_a_tampered_one_is_refused(officer, rec, t0):
    other_rec = _file("bob", f"手机{PHONE}", t0)
    token = parse_qs(urlsplit(_issue(officer, rec)).query)["token"][0]
    tampered = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
    for pk, tok in ((other_rec.pk, token), (rec.pk, tampered)):
        resp = officer.get(reverse("audit:quarantine-reveal", args=[pk]), {"token": tok})
        assert resp.status_code == 400 and PHONE not in resp.content.decode()
    assert AuditLog.objects.filter(action="quarantine.revealed").count() == 0
    # Neither refusal spent it: its own record still reveals with it.
    assert PHONE in officer.get(reverse("audit:quarantine-reveal", args=[rec.pk]), {"token": token}).content.decode()


def test_the_get_needs_the_reveal_permission_too(officer, rec, client):
    from django.contrib.auth import get_user_model

    url = _issue(officer, rec)
    client.force_login(get_user_model().objects.create_user("plain-staff", is_staff=True))
    assert client.get(url).status_code == 403
    assert _reveals(rec) == 0


# --- The tokens' cache unreachable: fail closed -------------------------------------------------

def _closed_port() -> int:
    """A local TCP port nothing listens on (bound, then released: connecting is refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _redis_down() -> dict:
    """CACHES with the project's real Redis cache (``cache_config``) pointed at a closed port."""
    return {"default": cache_config("redis", f"redis://127.0.0.1:{_closed_port()}/0")}


@pytest.fixture
def redis_down(settings):
    settings.CACHES = _redis_down()


def _failed(rec) -> list[dict]:
    return list(AuditLog.objects.filter(action="quarantine.reveal_failed", target_id=str(rec.pk))
                .values("actor__username", "subject_user_id", "details"))


def _assert_unavailable(resp, rec):
    html = resp.content.decode()
    assert resp.status_code == 503 and resp["Retry-After"] == "30" and "no-store" in resp["Cache-Control"]
    assert PHONE not in html and "Revealing is unavailable right now" in html and "Nothing was revealed" in html
    assert rec.preview in html  # the masked page, not an error page


def test_with_the_cache_down_the_post_issues_no_token_and_says_so(officer, rec, redis_down):
    resp = officer.post(reverse("audit:quarantine-reveal", args=[rec.pk]))
    _assert_unavailable(resp, rec)
    assert _reveals(rec) == 0
    # The attempt is on the trail, as a failure: never a quarantine.revealed row.
    assert _failed(rec) == [{"actor__username": "reviewer", "subject_user_id": rec.user_id,
                             "details": {"reason": "cache_unavailable", "stage": "issue"}}]


def test_with_the_cache_down_the_get_reveals_nothing_and_leaves_the_token_unspent(officer, rec):
    url = _issue(officer, rec)  # issued while the cache answers …
    assert _reveals(rec) == 0
    with override_settings(CACHES=_redis_down()):
        _assert_unavailable(officer.get(url), rec)  # … and redeem it while it does not
    assert _reveals(rec) == 0
    assert [f["details"]["stage"] for f in _failed(rec)] == ["redeem"]
    # Whether it was used could not be known, so it was not spent: it reveals once the cache is back.
    assert PHONE in officer.get(url).content.decode()
    assert _reveals(rec) == 1 and officer.get(url).status_code == 410


def test_the_reveal_works_on_the_real_redis_cache(officer, rec, settings):
    settings.CACHES = {"default": cache_config("redis", os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))}
    resp = officer.post(reverse("audit:quarantine-reveal", args=[rec.pk]), follow=True)
    assert resp.status_code == 200 and PHONE in resp.content.decode()
    assert officer.get(resp.redirect_chain[-1][0]).status_code == 410
    assert _reveals(rec) == 1 and _failed(rec) == []
