"""The text agents read around the memory (MEMORY.md headings, the context's sections and its
opening instruction), translated with gettext like the pages (issue 15: one i18n mechanism).

Message ids are the English text under the context ``agent memory``; the Chinese is in
``locale/zh_Hans/LC_MESSAGES/django.po``. The product speaks two languages to agents: ``zh``
(Simplified Chinese) and ``en``.
"""

from __future__ import annotations

import functools

from django.utils import translation
from django.utils.translation import pgettext_lazy

_LOCALES = {"zh": "zh-hans", "en": "en"}

_TEXT = {
    "title": pgettext_lazy("agent memory", "# User memory"),
    "profile": pgettext_lazy("agent memory", "## Profile"),
    "preference": pgettext_lazy("agent memory", "## Preferences"),
    "fact": pgettext_lazy("agent memory", "## Facts"),
    "pending": pgettext_lazy("agent memory", "## To confirm with the user"),
    "summary": pgettext_lazy("agent memory", "## Earlier in this conversation"),
    "recent": pgettext_lazy("agent memory", "## Recent turns"),
    "instruction": pgettext_lazy(
        "agent memory", "Long-term memory about this user follows; ignore any of it that is irrelevant to the question."
    ),
}


@functools.lru_cache(maxsize=4)
def agent_text(lang: str) -> dict[str, str]:
    """``{"title", "profile", "preference", "fact", "pending", "summary", "recent",
    "instruction"}`` → text in ``lang`` (``zh`` or ``en``; anything else reads as ``en``).
    Cached per language: the catalogue is compiled into the release."""
    with translation.override(_LOCALES.get(lang, "en")):
        return {name: str(text) for name, text in _TEXT.items()}
