"""Accessibility in a real browser: axe-core on every main page (user and staff, English and
Chinese, filled and empty), keyboard-only actions, a visible focus indicator.

Each audited page is also saved as var/screenshots/a11y_<lang>_<page>.png, and every axe finding
(blocking or not) as var/screenshots/axe_<lang>.json, to be looked at by a person.
"""

import json

import pytest

from audit.models import QuarantineRecord
from profiles.models import Snapshot
from profiles.models import MemoryItem
from profiles.services import agent_ensure

from .conftest import SCREENSHOTS, axe_report, axe_violations, login, shot
from .data import LONG_ZH_UNBROKEN, memory_fill, user_make

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _visit(page, path: str, name: str, problems: list) -> None:
    page.goto(page.base + path)
    problems += axe_violations(page, name)


def _no_horizontal_overflow(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")


def test_axe_finds_no_serious_violation_on_any_main_page(page_for):
    """Every main page, user and staff, filled and empty, in English then Chinese (one data set-up)."""
    agent_ensure(slug="main", is_entry=True)
    agent_ensure(slug="finance", is_entry=False)
    alice = user_make("alice")
    memory_fill(alice, long_values=True)
    user_make("bob")
    user_make("reviewer", officer=True)
    user_make("helpdesk", staff=True)  # staff without the officers' permissions
    problems = []
    for locale in ("en-US", "zh-CN"):
        problems += _audit_in(page_for, locale, alice)
    assert not problems, f"{len(problems)} axe violation(s):\n" + axe_report(problems)


def _audit_in(page_for, locale: str, alice) -> list[dict]:
    """Visit and audit every main page in ``locale``; returns the blocking violations found."""
    lang = locale[:2]
    latest = Snapshot.objects.filter(user=alice).order_by("-version").first().version
    rec = QuarantineRecord.objects.filter(user=alice, session_id__isnull=True).get()
    problems, log = [], []

    def page_as(username):
        page = page_for(locale)
        page.axe_log = log
        if username is None:
            return page
        login(page, username)
        return page

    anon = page_as(None)
    _visit(anon, "/accounts/login/?next=/memory/", f"a11y_{lang}_login", problems)

    page = page_as("alice")
    problems += axe_violations(page, f"a11y_{lang}_memory")
    assert page.locator("#pending").is_visible()
    assert LONG_ZH_UNBROKEN[:20] in page.locator("#fact").inner_text()
    assert _no_horizontal_overflow(page), "a long Chinese value widens /memory/"
    page.set_viewport_size({"width": 390, "height": 844})  # a phone: still no sideways scrolling
    shot(page, f"a11y_{lang}_memory_narrow")
    assert _no_horizontal_overflow(page), "/memory/ scrolls sideways on a phone"
    page.set_viewport_size({"width": 1100, "height": 900})
    _visit(page, "/memory/history/", f"a11y_{lang}_history", problems)
    assert page.locator("ul.timeline").is_visible() and _no_horizontal_overflow(page)
    _visit(page, "/memory/kept-out/", f"a11y_{lang}_kept_out", problems)
    assert page.locator("table.records tbody tr").count() == 2 and _no_horizontal_overflow(page)
    _visit(page, "/memory/switches/", f"a11y_{lang}_switches", problems)
    _visit(page, "/memory/clear/", f"a11y_{lang}_clear", problems)
    # The confirmation step refused (no tick): the error is shown and must be accessible too.
    page.evaluate("document.querySelector('#id_confirm').removeAttribute('required')")
    page.locator("form.danger-zone button[type=submit]").click()
    page.wait_for_selector("[role=alert]")
    problems += axe_violations(page, f"a11y_{lang}_clear_refused")

    empty = page_as("bob")
    problems += axe_violations(empty, f"a11y_{lang}_memory_empty")
    assert empty.locator("#nothing-yet p").is_visible()  # empty states say what will appear and why
    _visit(empty, "/memory/history/", f"a11y_{lang}_history_empty", problems)
    assert empty.locator("#history-empty p").is_visible()
    _visit(empty, "/memory/kept-out/", f"a11y_{lang}_kept_out_empty", problems)
    assert empty.locator("#kept-out-empty p").is_visible()
    empty.goto(empty.base + "/memory/clear/")
    empty.check("#id_confirm")
    empty.locator("form.danger-zone button[type=submit]").click()
    empty.wait_for_selector("#cleared")
    problems += axe_violations(empty, f"a11y_{lang}_cleared")

    staff = page_as("reviewer")
    _visit(staff, "/staff/", f"a11y_{lang}_staff_home", problems)
    _visit(staff, "/staff/versions/", f"a11y_{lang}_staff_versions", problems)
    _visit(staff, f"/staff/versions/{alice.pk}/?old=1&new={latest}", f"a11y_{lang}_staff_versions_user", problems)
    _visit(staff, "/staff/audit/", f"a11y_{lang}_staff_audit", problems)
    _visit(staff, "/staff/dashboard/", f"a11y_{lang}_staff_dashboard", problems)
    _visit(staff, "/review/", f"a11y_{lang}_review_list", problems)
    assert _no_horizontal_overflow(staff), "a long kept-out preview widens /review/"
    _visit(staff, "/review/?user=nobody", f"a11y_{lang}_review_list_empty", problems)
    staff.goto(staff.base + f"/review/{rec.pk}/")
    staff.locator("form[action$='/reveal'] button").click()
    staff.wait_for_selector("#original")
    problems += axe_violations(staff, f"a11y_{lang}_review_detail_revealed")

    helpdesk = page_as("helpdesk")
    _visit(helpdesk, f"/review/{rec.pk}/", f"a11y_{lang}_review_detail_withheld", problems)
    assert helpdesk.locator("#actions-withheld").is_visible() and not helpdesk.locator("form[action$='/reveal']").count()
    _visit(helpdesk, "/staff/audit/", f"a11y_{lang}_staff_403", problems)
    assert helpdesk.locator("[role=alert]").is_visible()

    (SCREENSHOTS / f"axe_{lang}.json").write_text(json.dumps(log, ensure_ascii=False, indent=1))
    return problems


def test_the_axe_check_catches_known_violations_and_names_rule_impact_and_target(page_for):
    page = page_for("en-US")
    page.set_content('<html><body><main><input id="unlabelled"><button id="nameless"></button>'
                     '<p style="color:#c0c0c0">faint</p><a href="/x"></a></main></body></html>')
    found = axe_violations(page, "a11y_known_bad", screenshot=False)
    assert {"label", "button-name", "color-contrast", "link-name", "html-has-lang", "document-title"} <= {
        v["rule"] for v in found}
    report = axe_report(found)
    assert "label (critical)" in report and "#unlabelled" in report and "#nameless" in report


def _tab_to(page, selector: str, limit: int = 60, backwards: bool = False) -> None:
    """Press Tab (Shift+Tab with ``backwards``) until the focused element matches ``selector``."""
    for _ in range(limit):
        page.keyboard.press("Shift+Tab" if backwards else "Tab")
        if page.evaluate("s => document.activeElement && document.activeElement.matches(s)", selector):
            return
    raise AssertionError(f"{selector} was not reached with the keyboard in {limit} presses")


def _focus_ring(page) -> dict:
    """The focused element's focus indicator: ``{"visible": matches :focus-visible, "outline":
    style, "width": px, "shadow": box-shadow, "contrast": outline colour against white (1–21)}``."""
    return page.evaluate("""() => { const e = document.activeElement, s = getComputedStyle(e);
        const lum = c => { const v = c / 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
        const [r, g, b] = s.outlineColor.match(/[0-9.]+/g).map(Number);
        const l = 0.2126 * lum(r) + 0.7152 * lum(g) + 0.0722 * lum(b);
        return {visible: e.matches(':focus-visible'), outline: s.outlineStyle, width: parseFloat(s.outlineWidth),
                shadow: s.boxShadow, contrast: 1.05 / (l + 0.05)}; }""")


def _assert_focus_ring(page) -> None:
    ring = _focus_ring(page)
    assert ring["visible"] and ring["outline"] != "none" and ring["width"] >= 2 and ring["contrast"] >= 3, ring


def test_keyboard_alone_deletes_an_entry_and_switches_memory_off(page_for):
    agent_ensure(slug="main", is_entry=True)
    alice = user_make("alice")
    memory_fill(alice)
    role = MemoryItem.objects.current().get(user=alice, value="产品经理")
    page = page_for("en-US")
    login(page, "alice")

    # The skip link is the first stop and takes focus into <main>.
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.classList.contains('skip')")
    assert page.locator("a.skip").is_visible()
    page.keyboard.press("Enter")

    # Delete one entry: Tab to its button, check the focus ring, Enter (the confirm() dialog is accepted).
    _tab_to(page, f"li[data-item='{role.pk}'] button")
    _assert_focus_ring(page)
    shot(page, "a11y_en_keyboard_focus")
    page.keyboard.press("Enter")
    page.wait_for_selector(".messages")
    assert page.locator(f"li[data-item='{role.pk}']").count() == 0
    assert "职位：产品经理" not in page.locator("main").inner_text()
    assert not MemoryItem.objects.filter(pk=role.pk).exists()

    # Switch memory off: Tab to the nav link, Space on the checkbox, then Save (checked with Shift+Tab and Tab).
    _tab_to(page, "header nav a[href$='/memory/switches/']")
    page.keyboard.press("Enter")
    page.wait_for_url("**/memory/switches/")
    _tab_to(page, "#id_memory_enabled")
    _assert_focus_ring(page)
    page.keyboard.press("Space")
    assert not page.is_checked("#id_memory_enabled")
    _tab_to(page, "main button[type=submit]")
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.matches('main button[type=submit]')")
    _assert_focus_ring(page)
    page.keyboard.press("Enter")
    page.wait_for_selector(".messages")
    assert not page.is_checked("#id_memory_enabled")
    alice.memory_settings.refresh_from_db()
    assert alice.memory_settings.memory_enabled is False
