"""Staff review pages /review/ in Simplified Chinese, and the completeness of the zh_Hans catalog."""

from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.urls import reverse

from audit.models import QuarantineRecord
from audit.sanitizer import analyze
from audit.services import quarantine_file, sensitive_words_active
from profiles.services import user_ensure
from tests.helpers import officer_make

PHONE = "13912345678"
ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}
PO = Path(django_settings.BASE_DIR) / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po"


@pytest.fixture
def staff_client(client, db):
    client.force_login(officer_make("reviewer"))
    return client


@pytest.fixture
def rec(db, t0):
    text = f"我的手机是{PHONE}，邮箱li@example.com"
    user = user_ensure(external_id="alice")
    return quarantine_file(
        user=user, session_id=None, message_ids=[], original=text,
        hits=analyze(text, sensitive_words=sensitive_words_active()), now=t0,
    )


def test_it_renders_the_list_page_in_chinese_with_readable_hit_types(staff_client, rec):
    resp = staff_client.get(reverse("audit:quarantine-list"), **ZH)
    html = resp.content.decode()
    assert resp.status_code == 200
    for s in ("隔离区审核", "命中类型", "预览（已遮盖）", "筛选", "任意类型", "起始日期"):
        assert s in html, s
    assert ">手机号<" in html and ">电子邮箱<" in html  # names from audit.labels.HIT_TYPE_NAMES
    assert "Quarantine review" not in html and "hit types" not in html


def test_it_renders_the_detail_page_in_chinese(staff_client, rec):
    resp = staff_client.get(reverse("audit:quarantine-detail", args=[rec.pk]), **ZH)
    html = resp.content.decode()
    assert resp.status_code == 200
    for s in (f"隔离记录 {rec.pk}", "显示原文", "标记为误报", "立即删除", "遮盖后的预览", ">手机号<"):
        assert s in html, s
    assert "Reveal original" not in html and "Mark false positive" not in html


def test_it_flashes_the_delete_message_in_chinese(staff_client, rec):
    resp = staff_client.post(reverse("audit:quarantine-delete", args=[rec.pk]), follow=True, **ZH)
    assert f"隔离记录 {rec.pk} 已删除。" in resp.content.decode()
    assert not QuarantineRecord.objects.filter(pk=rec.pk).exists()


def test_it_keeps_english_without_the_header(staff_client, rec):
    html = staff_client.get(reverse("audit:quarantine-detail", args=[rec.pk])).content.decode()
    assert "Reveal original" in html and "mobile phone number" in html


def test_it_refuses_the_chinese_pages_to_a_non_staff_user(client, rec, alice):
    client.force_login(alice)
    assert client.get(reverse("audit:quarantine-list"), **ZH).status_code == 403
    assert client.get(reverse("audit:quarantine-detail", args=[rec.pk]), **ZH).status_code == 403


def _po_entries(text: str) -> list[dict]:
    """``[{"msgid": str, "msgstr": [str], "fuzzy": bool}]`` of a .po file (header included)."""
    entries, cur, key = [], None, None
    for line in text.splitlines() + [""]:
        line = line.strip()
        if not line:
            if cur is not None:
                entries.append(cur)
            cur, key = None, None
            continue
        if line.startswith("#~"):
            continue
        cur = cur or {"msgid": "", "msgstr": [], "fuzzy": False}
        if line.startswith("#,") and "fuzzy" in line:
            cur["fuzzy"] = True
        elif line.startswith("msgid "):
            key = "msgid"
            cur["msgid"] = line[7:-1]
        elif line.startswith("msgid_plural "):
            key = "plural"
        elif line.startswith("msgstr"):
            key = "msgstr"
            cur["msgstr"].append(line.split(" ", 1)[1][1:-1])
        elif line.startswith('"') and key == "msgid":
            cur["msgid"] += line[1:-1]
        elif line.startswith('"') and key == "msgstr":
            cur["msgstr"][-1] += line[1:-1]
    return entries


def test_it_has_no_empty_or_fuzzy_translation_in_the_catalog():
    entries = [e for e in _po_entries(PO.read_text(encoding="utf-8")) if e["msgid"]]
    assert len(entries) > 100
    assert [e["msgid"] for e in entries if not e["msgstr"] or not all(e["msgstr"])] == []
    assert [e["msgid"] for e in entries if e["fuzzy"]] == []
    assert any(e["msgid"] == "Reveal original" for e in entries)
