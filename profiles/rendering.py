"""Rendering of the one-page memory document (MEMORY.md) from memory items."""

from __future__ import annotations

from bizmemory.tokens import count_tokens

from .agent_text import agent_text
from .item_text import item_text

_ORDER = ("profile", "preference", "fact")


def detect_language(texts: list[str]) -> str:
    """``"zh"`` when most characters of ``texts`` are CJK, else ``"en"``."""
    cjk = sum(1 for t in texts for ch in t if "\u4e00" <= ch <= "\u9fff")
    latin = sum(1 for t in texts for ch in t if ch.isascii() and ch.isalpha())
    return "zh" if cjk * 2 >= latin and cjk else "en"


def _line(item) -> str:
    return f"- {item_text(item)}"


def render_memory_markdown(items: list, *, max_tokens: int, lang: str | None = None) -> tuple[str, list]:
    """Render current items as Markdown grouped profile / preferences / facts.

    Inputs: MemoryItem-like objects (``kind``, ``key``, ``value``, ``text``,
    ``fact_date``, ``confirmed_at``), the token cap ``max_tokens`` (tiktoken), and
    the language (``zh``/``en``; detected from the items when None). Returns
    ``(markdown, rendered_items)``. When over the cap, the least recently
    confirmed items drop out first; they stay in the tables.
    """
    if not items:
        return "", []
    lang = lang or detect_language([i.text or i.value for i in items])
    heads = agent_text(lang)
    keep = sorted(items, key=lambda i: (i.confirmed_at, i.pk or 0), reverse=True)

    def build(chosen):
        parts = [heads["title"]]
        for kind in _ORDER:
            lines = [_line(i) for i in sorted((i for i in chosen if i.kind == kind), key=lambda i: (i.key, i.pk or 0))]
            if lines:
                parts.append("")
                parts.append(heads[kind])
                parts.extend(lines)
        return "\n".join(parts) + "\n"

    doc = build(keep)
    while keep and count_tokens(doc) > max_tokens:
        keep = keep[:-1]
        doc = build(keep) if keep else ""
    return doc, keep
