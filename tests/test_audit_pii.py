"""PII never enters memory: a replayed conversation with PII leaves no trace of it in any
memory table, journal, snapshot, document, search index, export or audit record, and the
quarantined original is encrypted at rest."""

import json
from io import StringIO

import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import connection, models

from audit import crypto
from audit.models import AuditLog, QuarantineRecord
from consolidation.models import JournalEntry, Message
from profiles.models import MemoryItem


def _id_number(body17):
    weights = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
    return body17 + "10X98765432"[sum(int(d) * w for d, w in zip(body17, weights)) % 11]


def _luhn(body):
    total = 0
    for i, ch in enumerate(reversed(body)):
        d = int(ch) * (2 if i % 2 == 0 else 1)
        total += d - 9 if d > 9 else d
    return body + str((10 - total % 10) % 10)


PHONE = "13987654321"
RESIDENT_ID = _id_number("44010619850317123")
CARD = _luhn("622202123456789012")
EMAIL = "wang.fang@example.com"
SECRET = "绝密"  # a sensitive word seeded from settings (tests/conftest.py)
PII = [PHONE, RESIDENT_ID, CARD, EMAIL, SECRET]

# Each PII message would also yield a memory candidate ("法务部", "厦门", "Lisbon") if it
# were clean: the whole candidate, sentence included, must stay out.
CONV = {
    "id": "pii-1", "user_id": "u-pii", "agent_id": "main",
    "settings": {"memory_enabled": True, "experts_disabled": [], "experts_excluded_from_extraction": []},
    "sessions": [{
        "session_id": "pii-1-s1", "kind": "chat", "started_at": "2026-03-02T09:15:00+08:00",
        "messages": [
            {"role": "user", "content": "你好，我是杭州研发中心的测试工程师。"},
            {"role": "assistant", "content": "您好", "expert": None},
            {"role": "user", "content": f"我是法务部的经理，手机{PHONE}，身份证{RESIDENT_ID}。"},
            {"role": "assistant", "content": "好的", "expert": None},
            {"role": "user", "content": f"我在厦门工作，工资卡{CARD}，这是{SECRET}信息。"},
            {"role": "assistant", "content": "收到", "expert": None},
            {"role": "user", "content": f"I am a product manager based in Lisbon, email me at {EMAIL}."},
            {"role": "assistant", "content": "Sure.", "expert": None},
            {"role": "user", "content": "以后回答我直接给结论就行。"},
            {"role": "assistant", "content": "明白", "expert": None},
        ],
    }],
}

# The conversation log itself: the platform's messages as received, not memory.
RAW_CONVERSATION = {(Message, "content")}


@pytest.fixture
def replayed(db, tmp_path):
    path = tmp_path / "conv.jsonl"
    path.write_text(json.dumps(CONV, ensure_ascii=False) + "\n", encoding="utf-8")
    call_command("replay", str(path), stdout=StringIO())


def _text_columns():
    for model in apps.get_models():
        if model._meta.proxy or not model._meta.managed:
            continue
        for f in model._meta.concrete_fields:
            if isinstance(f, (models.CharField, models.TextField, models.JSONField)) and (model, f.name) not in RAW_CONVERSATION:
                yield model, f


def test_the_pipeline_blocked_and_quarantined_each_pii_message(replayed):
    assert QuarantineRecord.objects.count() == 3
    types = set(",".join(QuarantineRecord.objects.values_list("hit_types", flat=True)).split(","))
    assert types >= {"CN_MOBILE", "CN_RESIDENT_ID", "BANK_CARD", "EMAIL_ADDRESS", "SENSITIVE_WORD"}
    # The clean messages did become memory, so the pipeline really ran.
    assert MemoryItem.objects.filter(user__username="u-pii").exists()


def test_a_pii_message_gives_only_pii_free_candidates_to_the_journal_and_memory(replayed):
    # The turn is quarantined; what else it says is read with the PII masked (pipeline: "every
    # candidate is sanitized"), so no value, text or key ever carries the PII or the mask.
    for model in (JournalEntry, MemoryItem):
        for key, value, text in model.objects.values_list("key", "value", "text"):
            blob = key + value + text
            assert not any(p in blob for p in PII) and "\u2588" not in blob, blob


def test_pii_is_in_no_plain_text_column_of_any_table(replayed):
    scanned = set()
    for model, f in _text_columns():
        scanned.add(model._meta.label)
        for value in model._default_manager.values_list(f.attname, flat=True):
            blob = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
            for pii in PII:
                assert pii not in blob, f"{pii!r} found in {model._meta.label}.{f.name}"
    assert {"audit.AuditLog", "audit.QuarantineRecord", "consolidation.JournalEntry", "profiles.Snapshot",
            "profiles.MemoryItem", "profiles.MemoryDocument"} <= scanned


def test_pii_is_in_no_audit_record(replayed):
    assert AuditLog.objects.filter(action="quarantine.filed").count() == 3
    for log in AuditLog.objects.all():
        flat = json.dumps(log.details, ensure_ascii=False) + log.action + log.target_type + log.target_id
        assert not any(p in flat for p in PII), log.action


def test_pii_is_in_no_export(replayed):
    out = StringIO()
    call_command("export_memory", "--format", "json", stdout=out)
    exported = out.getvalue()
    user = json.loads(exported)["users"]["u-pii"]
    assert user["quarantine_count"] == 3 and user["items"] and user["snapshots"]
    for pii in PII:
        assert pii not in exported
    md = StringIO()
    call_command("export_memory", "--format", "md", stdout=md)
    assert not any(p in md.getvalue() for p in PII)


def test_the_quarantined_original_is_encrypted_at_rest(replayed):
    with connection.cursor() as cur:
        cur.execute(f"SELECT original_encrypted FROM {QuarantineRecord._meta.db_table}")
        raw = [bytes(row[0]) for row in cur.fetchall()]
    assert len(raw) == 3
    for blob in raw:
        for pii in PII:
            assert pii.encode() not in blob
        assert "法务部".encode() not in blob and b"Lisbon" not in blob
    for model in apps.get_models():  # no other binary column holds it either
        for f in model._meta.concrete_fields:
            if isinstance(f, models.BinaryField):
                for value in model._default_manager.values_list(f.attname, flat=True):
                    assert not any(p.encode() in bytes(value) for p in PII)
    originals = {crypto.decrypt(r.original_encrypted) for r in QuarantineRecord.objects.all()}
    assert {m["content"] for m in CONV["sessions"][0]["messages"] if any(p in m["content"] for p in PII)} == originals


# --------------------------------------------------------------------------------------------
# Credentials, Luhn-failing cards next to a card word, and SSNs: kept out like any other PII,
# masked in every preview, and named in words on the user's and the reviewers' pages.

BAD_CARD = "6222021234567890123"  # 19 digits, fails the Luhn check
LEAKS = {
    "CREDENTIAL": [("my password is hunter2, I work in Porto", "hunter2"),
                   ("我的密码是Abc123456，我在苏州上班", "Abc123456"),
                   ("验证码 482913，我是财务部的", "482913"),
                   ("token: ghp_abcdefghijklmnopqrstuvwxyz0123456789 for my team in Oslo",
                    "ghp_abcdefghijklmnopqrstuvwxyz0123456789")],
    "BANK_CARD": [(f"我的银行卡号{BAD_CARD}，我在厦门工作", BAD_CARD)],
    "US_SSN": [("My SSN is 078-05-1120 and I live in Denver", "078-05-1120")],
}


def _file_through_the_pipeline(username, session, text, t0):
    from consolidation.extraction import extraction_run
    from consolidation.models import Session
    from tests.helpers import post_turns

    post_turns(username, session, [("user", text), ("assistant", "好的")], start=t0)
    extraction_run(session_id=Session.objects.get(external_id=session).pk, now=t0, trigger="session_end")
    return QuarantineRecord.objects.filter(session_external_id=session)


@pytest.mark.parametrize(
    "hit_type, text, secret", [(t, text, s) for t, pairs in LEAKS.items() for text, s in pairs]
)
def test_credentials_bad_cards_and_ssns_are_quarantined_with_a_masked_preview(alice, t0, hit_type, text, secret):
    recs = list(_file_through_the_pipeline("alice", "s-leak", text, t0))
    assert len(recs) == 1
    rec = recs[0]
    assert rec.hit_types == hit_type
    assert secret not in rec.preview and len(rec.preview) == len(text)
    for value, entry_text in JournalEntry.objects.filter(user=alice).values_list("value", "text"):
        assert secret not in value + entry_text and "\u2588" not in value + entry_text
    assert not any(secret in v for v in MemoryItem.objects.filter(user=alice).values_list("value", flat=True))
    for log in AuditLog.objects.all():
        assert secret not in json.dumps(log.details, ensure_ascii=False)


def test_a_credential_is_named_in_words_on_the_kept_out_and_review_pages(alice, t0, client):
    from django.contrib.auth import get_user_model
    from django.urls import reverse

    text, secret = LEAKS["CREDENTIAL"][1]
    rec = _file_through_the_pipeline("alice", "s-cred", text, t0).get()
    assert "我的密码是" in rec.preview  # the keyword stays readable, the value does not
    client.force_login(alice)
    en = client.get("/memory/kept-out/").content.decode()
    zh = client.get("/memory/kept-out/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "password or secret key" in en and "CREDENTIAL" not in en and secret not in en
    assert "密码或密钥" in zh and secret not in zh
    staff = get_user_model().objects.create_user("reviewer", password="pw", is_staff=True)
    client.force_login(staff)
    for url in (reverse("audit:quarantine-list"), reverse("audit:quarantine-detail", args=[rec.pk])):
        page = client.get(url).content.decode()
        assert "password or secret key" in page and secret not in page, url


def test_every_sanitizer_type_has_a_readable_name():
    from audit.sanitizer import ENTITY_TYPES
    from audit.labels import HIT_TYPE_NAMES

    assert set(ENTITY_TYPES) <= set(HIT_TYPE_NAMES)
