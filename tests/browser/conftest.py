"""Headless Chromium (Debian's /usr/bin/chromium) driven by Playwright against Django's live server.

Playwright's own browser download is never used (it fails offline): the browser is the
system one. Screenshots go to var/screenshots/. The tests skip, naming the missing binary and
the command that installs it, when /usr/bin/chromium (or ``CHROMIUM``) or the playwright package
is missing — and fail under CI (``tests/ci.py``); pytest.ini's ``-rs`` prints each skip's reason.
"""

import os
from pathlib import Path

import pytest

from tests.ci import absent, require_module

# The system browser; CHROMIUM=<path> names another one (e.g. /usr/bin/chromium-browser).
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
INSTALL_HINT = "install it with: sudo scripts/install-system-deps.sh (Debian's chromium and a CJK font)"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"


def chromium_or_absent(path: str | None = None) -> str:
    """The Chromium binary ``path`` (default ``CHROMIUM``) when it is an executable file; otherwise
    skip the test naming the missing binary and the command that installs it — under CI, fail
    (``tests.ci.absent``)."""
    path = path or CHROMIUM
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        absent(f"browser tests need Chromium, and {path} is missing; {INSTALL_HINT}")
    return path


# Module scope: Playwright's sync API keeps an event loop running in this thread while it is
# open, which would break later tests that call asyncio.run(); it is closed after each module.
@pytest.fixture(scope="module")
def browser():
    chromium_or_absent()
    sync_api = require_module("playwright.sync_api", "the playwright package is not installed (bin/setup installs it)")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    # With that loop running, Django refuses ORM calls from this thread; the tests' own data
    # set-up is synchronous and safe (the live server runs in its own thread). Scoped to here.
    before = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_api.sync_playwright() as p:
            b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            yield b
            b.close()
    finally:
        if before is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = before


@pytest.fixture
def page_for(browser, live_server):
    """``page_for(locale)`` → a new page in a fresh context whose browser language is ``locale``
    (``en-US`` / ``zh-CN``), with ``base`` set to the live server URL. Dialogs are accepted."""
    contexts = []

    def make(locale="en-US"):
        ctx = browser.new_context(locale=locale, viewport={"width": 1100, "height": 900})
        contexts.append(ctx)
        page = ctx.new_page()
        page.set_default_timeout(15000)
        page.on("dialog", lambda d: d.accept())
        page.base = live_server.url
        return page

    yield make
    for ctx in contexts:
        ctx.close()


def shot(page, name: str) -> Path:
    """Save a full-page screenshot as var/screenshots/<name>.png; returns the path."""
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def login(page, username: str, password: str = "pw") -> None:
    page.goto(page.base + "/accounts/login/?next=/memory/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("main button[type=submit]")
    page.wait_for_url("**/memory/")


# axe-core rules that must pass outright, whatever impact axe gives them; any other rule fails
# the check only when its impact is serious or critical. ("aria-" covers every aria-* rule.)
AXE_REQUIRED_RULES = ("label", "button-name", "color-contrast", "link-name", "image-alt", "html-has-lang",
                      "html-lang-valid", "document-title", "duplicate-id-aria", "select-name", "svg-img-alt",
                      "landmark-one-main", "region", "aria-")
AXE_BLOCKING_IMPACTS = ("serious", "critical")


def axe_violations(page, name: str, screenshot: bool = True) -> list[dict]:
    """Run axe-core (bundled in the ``axe-playwright-python`` package, injected into the page: no
    network) on the page as it is now, and (``screenshot``) save it as ``var/screenshots/<name>.png``.

    Returns the blocking violations as ``[{"page", "rule", "impact", "targets": [selector, ...],
    "help"}]``: impact serious/critical, or any impact for a rule in ``AXE_REQUIRED_RULES``.
    Every violation found (blocking or not) is also appended to ``page.axe_log`` if the page has one.
    Skips the test when the package is not installed."""
    axe_sync = require_module("axe_playwright_python.sync_playwright", "the axe-playwright-python package is not installed")
    if screenshot:
        shot(page, name)
    results = axe_sync.Axe().run(page, options={"resultTypes": ["violations"]})
    found = []
    for v in results.response["violations"]:
        row = {"page": name, "rule": v["id"], "impact": v["impact"], "help": v["help"],
               "targets": [" ".join(map(str, n["target"])) for n in v["nodes"]]}
        getattr(page, "axe_log", []).append(row)
        if v["impact"] in AXE_BLOCKING_IMPACTS or any(
                v["id"] == r or (r.endswith("-") and v["id"].startswith(r)) for r in AXE_REQUIRED_RULES):
            found.append(row)
    return found


def axe_report(violations: list[dict]) -> str:
    """One line per violation: ``<page>: <rule> (<impact>) — <help> — targets: <sel>; <sel>``."""
    return "\n".join(f"{v['page']}: {v['rule']} ({v['impact']}) — {v['help']} — targets: {'; '.join(v['targets'])}"
                     for v in violations)
