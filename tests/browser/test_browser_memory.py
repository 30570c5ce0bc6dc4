"""Browser tests: a real headless Chromium drives the memory pages and the staff versions page."""

import pytest
from django.contrib.auth import get_user_model

from profiles.models import ConfirmationRequest, ConfirmationStatus, Snapshot
from profiles.models import MemoryItem
from profiles.services import agent_ensure

from .conftest import login, shot
from .data import memory_fill as _memory
from .data import user_make as _user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_user_sees_deletes_switches_confirms_and_clears(page_for):
    agent_ensure(slug="main", is_entry=True)
    agent_ensure(slug="finance", is_entry=False)
    alice = _user("alice")
    _memory(alice)
    page = page_for("en-US")
    login(page, "alice")
    assert page.locator("#profile").inner_text().count("城市：深圳") == 1
    assert page.locator("#pending").is_visible()
    shot(page, "my_memory_en")

    # Confirm the pending change (city 北京 → 深圳).
    page.click("#pending button:has-text('Confirm the new value')")
    page.wait_for_selector(".messages")
    assert ConfirmationRequest.objects.get(user=alice).status == ConfirmationStatus.CONFIRMED

    # Delete one entry.
    role = MemoryItem.objects.current().get(user=alice, value="产品经理")
    page.click(f"li[data-item='{role.pk}'] button.danger")
    page.wait_for_selector(".messages")
    assert "职位：产品经理" not in page.locator("main").inner_text()
    assert "职位" not in page.locator("#document pre").inner_text()
    assert not MemoryItem.objects.filter(pk=role.pk).exists()

    # Switch memory off, then look at history and what was kept out.
    page.click("header nav >> text=Switches")
    page.uncheck("#id_memory_enabled")
    shot(page, "switches_en")
    page.click("button:has-text('Save switches')")
    page.wait_for_selector(".messages")
    assert not page.is_checked("#id_memory_enabled")
    alice.memory_settings.refresh_from_db()
    assert alice.memory_settings.memory_enabled is False
    page.click("header nav >> text=History")
    page.wait_for_selector("ul.timeline")  # what happened to each entry; the deleted role as "an earlier value"
    assert "Deleted by you" in page.locator("main").inner_text() and "产品经理" not in page.content()
    shot(page, "history_en")
    page.click("header nav >> text=Kept out")
    assert "mobile phone number" in page.locator("table.records").inner_text()
    assert "13912345678" not in page.content()
    shot(page, "kept_out_en")

    # Clear everything: the confirmation step refuses without the tick box.
    page.click("header nav >> text=Clear everything")
    shot(page, "clear_en")
    page.evaluate("document.querySelector('#id_confirm').removeAttribute('required')")
    page.click("button:has-text('Delete everything now')")
    page.wait_for_selector("[role=alert]")
    assert MemoryItem.objects.filter(user=alice).exists()
    page.check("#id_confirm")
    page.click("button:has-text('Delete everything now')")
    page.wait_for_selector("#cleared")
    shot(page, "cleared_en")
    assert not MemoryItem.objects.filter(user=alice).exists() and not Snapshot.objects.filter(user=alice).exists()
    page.click("header nav >> text=My memory")
    assert page.locator("#document .empty").is_visible()


def test_the_language_follows_the_browser_and_the_switcher(page_for):
    alice = _user("alice")
    _memory(alice)
    page = page_for("zh-CN")
    login(page, "alice")
    assert page.locator("h1").inner_text() == "我的记忆"
    assert page.locator("html").get_attribute("lang") == "zh-hans"
    shot(page, "my_memory_zh")
    page.goto(page.base + "/memory/switches/")
    shot(page, "switches_zh")
    page.goto(page.base + "/memory/kept-out/")
    assert "手机号" in page.locator("table.records").inner_text()
    shot(page, "kept_out_zh")
    page.select_option("#lang-select", "en")  # submits itself (JS); the button is for no-JS
    page.wait_for_function("document.documentElement.lang === 'en'")
    assert page.locator("h1").inner_text() == "What was kept out of your memory"
    page.goto(page.base + "/memory/")
    assert page.locator("h1").inner_text() == "My memory"


def test_staff_restores_a_version_and_gets_a_rollback_point(page_for):
    alice = _user("alice")
    _memory(alice)
    _user("reviewer", officer=True)
    page = page_for("en-US")
    login(page, "reviewer")
    page.goto(page.base + "/staff/")
    shot(page, "staff_home_en")
    page.click("text=Memory versions per user")
    page.click("text=alice")
    before = Snapshot.objects.filter(user=alice).count()
    page.click("tr[data-version='1'] button")
    page.wait_for_selector(".messages")
    assert "restored" in page.locator(".messages").inner_text()
    shot(page, "staff_versions_en")
    reasons = list(Snapshot.objects.filter(user=alice).order_by("-version").values_list("reason", flat=True)[:2])
    assert reasons == ["restore", "rollback_point"] and Snapshot.objects.filter(user=alice).count() == before + 2
    page.goto(page.base + f"/staff/versions/{alice.pk}/")
    page.select_option("#lang-select", "zh-hans")
    page.wait_for_function("document.documentElement.lang === 'zh-hans'")
    shot(page, "staff_versions_zh")
    assert get_user_model().objects.get(username="reviewer").is_staff


def test_staff_reveals_a_quarantined_original_and_it_is_audited(page_for):
    from audit.models import AuditLog, QuarantineRecord

    alice = _user("alice")
    _memory(alice)
    _user("reviewer", officer=True)
    rec = QuarantineRecord.objects.get(user=alice)
    page = page_for("en-US")
    login(page, "reviewer")
    page.goto(page.base + "/review/")
    assert "139****5678" in page.content() and "13912345678" not in page.content()
    page.goto(page.base + f"/review/{rec.pk}/")
    page.click("text=Reveal original")
    page.wait_for_selector("text=13912345678")
    shot(page, "review_reveal_en")
    assert AuditLog.objects.filter(target_type="quarantine_record", target_id=str(rec.pk), actor__username="reviewer").exists()
    page.goto(page.base + f"/review/{rec.pk}/")
    assert "13912345678" not in page.content()  # shown once, not on the next visit
