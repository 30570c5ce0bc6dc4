"""Read-side selectors: what agents, exports and pages see of a user's memory.

Every selector takes the user and filters by it first: no selector reads across users.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import json
import re
from dataclasses import dataclass, field

from django.conf import settings
from django.db import DatabaseError, IntegrityError, connection, transaction

from audit.floor import mask_floor
from audit.models import QuarantineRecord
from audit.sanitizer import analyze, mask
from audit.services import sensitive_words_active
from bizmemory.tokens import count_tokens

from .access import _access_reason, memory_access_reason  # noqa: F401 — memory_access_reason is re-exported
from .agent_text import agent_text
from .confirmations import pending_confirmations
from .item_text import fact_precision, item_text
from .models import (
    ContextPack, ExpertSetting, MemoryDocument, MemoryItem, MemorySettings, MemoryVector, MemoryVersion, Snapshot,
    VectorSource,
)
from .ports import conversations
from .rendering import detect_language
from .search import index_heal, search_chunks
from .versions import memory_version_read

RECENT_TURNS_MAX = 20  # messages read for the sliding window
SUMMARY_SOURCE_MAX = 50  # older user turns read for the rolling summary
TURN_CHARS = 600
SUMMARY_LINE_CHARS = 80
_SENTENCE_END = re.compile(r"(?<=[。！？!?；;])|(?<=\.)\s")


@dataclass
class MemoryContext:
    """Text to inject into an agent's prompt.

    ``text`` never exceeds ``budget`` tokens (``tokens`` is its tiktoken count);
    ``item_ids`` are the memory items it used and ``message_ids`` the session turns;
    ``reason`` says why it is empty (``memory_off``, ``expert_off``, ``temporary_session``,
    ``no_memory``, ``budget_too_small``) or is ``ok``.
    """

    text: str
    tokens: int
    budget: int
    item_ids: list[int] = field(default_factory=list)
    reason: str = "ok"
    message_ids: list[int] = field(default_factory=list)
    sections: dict[str, int] = field(default_factory=dict)


class SessionNotFound(LookupError):
    """The session id is unknown or belongs to another user."""


@dataclass(frozen=True)
class SessionWindow:
    """One session's turns for the context, as the pipeline reads them
    (``consolidation.selectors.session_window``): ``recent`` (newest first, user and assistant
    turns only, at most ``RECENT_TURNS_MAX``) and ``older`` (user turns before them, newest first,
    at most ``SUMMARY_SOURCE_MAX``, when ``recent`` is full), each ``[(message id, role,
    content)]``; ``flagged`` the ids among them that the injection detector flags (never quoted as
    the user's words); ``temporary`` the session's flag."""

    temporary: bool
    recent: list[tuple[int, str, str]]
    older: list[tuple[int, str, str]]
    flagged: frozenset[int] = frozenset()


def _words_signature(words: list[str]) -> str:
    return hashlib.sha1("\x00".join(words).encode()).hexdigest()[:12]


@functools.lru_cache(maxsize=100_000)
def _masked(text: str, sig: str, words: tuple[str, ...]) -> str:
    hits = analyze(text, sensitive_words=words)
    return mask(text, hits) if hits else text


def outbound_mask(text: str, *, words: list[str], words_sig: str | None = None) -> str:
    """``text`` with the sanitizer's current hits masked (defence in depth for data stored before a
    detector or a sensitive word existed). Results are kept in a per-process LRU (100,000 texts)
    keyed by text and word list, so a warm request costs no sanitizer call (~1 ms each)."""
    if not text.strip():
        return text
    return _masked(text, words_sig or _words_signature(words), tuple(words))


def _first_sentence(text: str) -> str:
    first = _SENTENCE_END.split(text.strip(), maxsplit=1)[0].strip()
    first = " ".join(first.split())
    return first if len(first) <= SUMMARY_LINE_CHARS else first[: SUMMARY_LINE_CHARS - 1] + "…"


def _pending_lines(user) -> list[str]:
    out = []
    for p in pending_confirmations(user=user) or []:
        get = p.get if isinstance(p, dict) else (lambda k, _p=p: getattr(_p, k, None))
        text = get("line") or get("question") or get("text") or ""
        if text:
            out.append(f"- {' '.join(str(text).split())}")
    return out


@functools.lru_cache(maxsize=64)
def _header_tokens(header: str) -> int:
    """Tokens of a section header line (a handful of fixed strings per language)."""
    return count_tokens(header + "\n")


class _Filler:
    """Greedy token accounting: sections of lines are taken while they fit the budget."""

    def __init__(self, budget: int, clean):
        self.left = budget
        self.clean = clean
        self.sections: dict[str, list[tuple[str, object]]] = {}

    def take(self, name: str, header: str, lines, cap: int, *, contiguous: bool = False) -> int:
        """Add lines (``(text, ref)`` or ``(text, ref, tokens of text + newline)``) of section ``name``
        while they fit ``cap`` tokens; returns tokens used.

        Lines pass the outbound sanitizer (``clean``) only when examined, so the cost grows with
        the budget, not with the number of items."""
        cap = min(cap, self.left)
        used = 0
        chosen: list[tuple[str, object]] = []
        header_cost = _header_tokens(header)
        misses = 0
        for line in lines:
            raw, ref = line[0], line[1]
            if cap - used < 4 or misses >= 8:  # nothing shorter is likely to fit
                break
            text = self.clean(raw)
            # A precomputed count (third element, the context pack's) holds while masking changed nothing.
            known = line[2] if len(line) > 2 and text == raw else None
            cost = (known if known is not None else count_tokens(text + "\n")) + (0 if chosen else header_cost)
            if used + cost > cap:
                if contiguous:
                    break
                misses += 1
                continue
            chosen.append((text, ref))
            used += cost
        if chosen:
            self.sections[name] = [(header, None), *chosen]
        self.left -= used
        return used


def _item_line(item) -> str:
    return f"- {item_text(item)}"


def _ranked_facts(user, facts: list, query: str, now) -> list:
    """Fact lines of the context pack (``(line, item id, tokens)``, newest first) re-ordered by
    ``profiles.search`` relevance to ``query``; unranked facts follow, newest first."""
    if not query or not facts:
        return facts
    index_heal(user_id=user.pk)
    hits, _ = search_chunks(user_id=user.pk, query=query, source=VectorSource.ITEM, top_k=len(facts) + 50, now=now)
    rank = {h.id: n for n, h in enumerate(hits)}
    return sorted(facts, key=lambda line: rank.get(line[1], len(rank)))  # stable: recency among equals


PACK_FORMAT = 3  # bump when the layout of ContextPack.sections changes: older packs are rebuilt
_LANG_SAMPLE = 20  # item texts kept in the pack for language detection together with session turns


def _pack_section(lines: list[tuple[str, int | None]]) -> dict:
    """A pack section: ``{"lines": one string, lines joined by newlines, "ids": [item id or None],
    "tokens": [tokens of line + newline]}`` — one long string decodes several times faster than a
    list of lists (the hot path decodes the pack on every request). Lines never hold a newline
    (``_item_line`` and ``_pending_lines`` collapse whitespace)."""
    return {
        "lines": "\n".join(line for line, _ in lines),
        "ids": [ref for _, ref in lines],
        "tokens": [count_tokens(line + "\n") for line, _ in lines],
    }


def _pack_lines(section: dict):
    """Iterate a pack section as ``(line, item id or None, tokens)`` tuples."""
    if not section["ids"]:
        return iter(())
    return zip(section["lines"].split("\n"), section["ids"], section["tokens"])


def context_pack_build(*, user) -> ContextPack:
    """Rebuild and store ``user``'s :class:`~profiles.models.ContextPack` from current items and
    pending confirmations; returns it. The memory version is read before the items, so a write
    racing with the build leaves a pack stamped with the older version, rebuilt on the next read."""
    version = memory_version_read(user_id=user.pk)
    items = list(MemoryItem.objects.current().filter(user=user).only(
        "id", "kind", "key", "value", "text", "fact_date", "valid_from", "confirmed_at"
    ))
    by_kind = {k: [i for i in items if i.kind == k] for k in ("profile", "preference", "fact")}
    by_kind["profile"].sort(key=lambda i: (i.key, i.pk))
    by_kind["preference"].sort(key=lambda i: (-i.confirmed_at.timestamp(), i.pk))
    by_kind["fact"].sort(key=lambda i: (i.fact_date or i.valid_from.date(), i.pk), reverse=True)
    sections = {}
    for kind, its in by_kind.items():
        sections[kind] = _pack_section([(_item_line(i), i.pk) for i in its])
    sections["pending"] = _pack_section([(line, None) for line in _pending_lines(user)])
    sample = [i.text or i.value for i in items[:_LANG_SAMPLE]]
    sections["lang_sample"] = sample
    sections["format"] = PACK_FORMAT
    lang = detect_language([i.text or i.value for i in items]) if items else ""
    pack = ContextPack(user=user, memory_version=version, lang=lang, sections=sections)
    try:
        with transaction.atomic():
            ContextPack.objects.update_or_create(
                user=user, defaults={"memory_version": version, "lang": lang, "sections": sections},
            )
    except (IntegrityError, DatabaseError):  # a concurrent build won, or a read-only moment: serve this one
        pass
    return pack


@functools.lru_cache(maxsize=4)
def _gate_sql(vendor: str) -> str:
    q = connection.ops.quote_name
    t = {m.__name__: q(m._meta.db_table) for m in (MemorySettings, ExpertSetting, ContextPack, MemoryVersion)}
    agent = q(ExpertSetting._meta.get_field("agent").related_model._meta.db_table)
    return (
        f"SELECT (SELECT ms.memory_enabled FROM {t['MemorySettings']} ms WHERE ms.user_id = %s),"
        f" (SELECT COUNT(*) FROM {t['ExpertSetting']} es INNER JOIN {agent} ag ON ag.id = es.agent_id"
        f"  WHERE es.user_id = %s AND ag.slug = %s AND es.memory_enabled = %s),"
        f" (SELECT mv.version FROM {t['MemoryVersion']} mv WHERE mv.user_id = %s),"
        f" cp.memory_version, cp.lang, cp.sections"
        f" FROM (SELECT 1 AS one) AS gate LEFT JOIN {t['ContextPack']} cp ON cp.user_id = %s"
    )


def _context_gate(user, agent_slug: str, temporary: bool) -> tuple[str | None, tuple[str, dict] | None]:
    """One round trip for the hot path: ``(reason, pack)`` where ``reason`` is as
    :func:`memory_access_reason` gives it (None when the agent may read) and ``pack`` is
    ``(lang, sections)`` of the user's context pack when it is current, else None.
    ``(user, agent)`` pairs have at most one expert setting (unique constraint)."""
    with connection.cursor() as cur:
        cur.execute(_gate_sql(connection.vendor), [user.pk, user.pk, agent_slug, False, user.pk, user.pk])
        enabled, expert_off, version, pack_version, lang, sections = cur.fetchone()
    reason = _access_reason(memory_enabled=enabled, temporary=temporary, expert_off=bool(expert_off))
    if reason:
        return reason, None
    if pack_version is None or pack_version != (version or 0):
        return None, None
    if isinstance(sections, (str, bytes)):  # SQLite and MariaDB hand JSON back as text
        sections = json.loads(sections)
    if sections.get("format") != PACK_FORMAT:  # written by an older release: rebuild
        return None, None
    return None, (lang, sections)


def _take_turns(fill: "_Filler", heads: dict, recent: list, older: list, flagged: frozenset) -> None:
    """Fill the ``recent`` (the session's last turns, contiguous, newest kept first) and ``summary``
    (first sentence of each older user turn, injection-flagged turns left out) sections of
    ``fill``, then put both in time order. ``recent`` / ``older`` are ``[(id, role, content)]``,
    newest first (:class:`SessionWindow`). Raw turns pass the masking floor
    (``audit.floor.mask_floor``) before they are cut or summarised, whatever the detector says."""
    recent = [(mid, role, mask_floor(content)) for mid, role, content in recent]
    older = [(mid, role, mask_floor(content)) for mid, role, content in older]
    turns = [(f"{role}: {' '.join(content.split())[:TURN_CHARS]}", mid) for mid, role, content in recent]
    summary_wanted = bool(older) or len(recent) > 2
    fill.take("recent", "\n" + heads["recent"], turns, int(fill.left * 0.75) if summary_wanted else fill.left,
              contiguous=True)
    shown = {ref for _, ref in fill.sections.get("recent", [])}
    source = [m for m in recent if m[0] not in shown and m[1] == "user"] + older  # newest first
    # Quoted as the user's words, and without turns that try to instruct the assistant or write
    # memory: the summary sits under the memory header, where an injection would read as a fact.
    lines = [(f"- user: {_first_sentence(content)}", mid) for mid, _, content in source
             if content.strip() and mid not in flagged]
    fill.take("summary", "\n" + heads["summary"], lines, fill.left, contiguous=True)
    for name in ("recent", "summary"):  # taken newest first, shown in time order
        if name in fill.sections:
            fill.sections[name] = [fill.sections[name][0], *reversed(fill.sections[name][1:])]


def _assembled(fill: "_Filler", head: str, budget: int) -> MemoryContext:
    """The context text from the instruction line ``head`` and ``fill``'s sections in reading
    order, trimmed from the end until it fits ``budget`` tokens (BPE merges across lines can add
    a token or two); empty with ``budget_too_small`` when only the instruction would fit."""
    out: list[tuple[str, str, object]] = [("head", head, None)]
    for name in ("profile", "preference", "fact", "pending", "summary", "recent"):
        out.extend((name, text, ref) for text, ref in fill.sections.get(name, []))
    text = "\n".join(t for _, t, _ in out)
    tokens = count_tokens(text)
    while tokens > budget and len(out) > 1:  # BPE merges across lines can add a token or two
        out.pop()
        if len(out) > 1 and out[-1][2] is None and out[-1][1].startswith("\n"):
            out.pop()  # a section header left without lines
        text = "\n".join(t for _, t, _ in out)
        tokens = count_tokens(text)
    if len(out) == 1:
        # Only the instruction line fits: injecting it alone would spend tokens on nothing.
        return MemoryContext("", 0, budget, reason="budget_too_small")
    return MemoryContext(
        text=text,
        tokens=tokens,
        budget=budget,
        item_ids=[ref for name, _, ref in out if ref is not None and name in ("profile", "preference", "fact")],
        message_ids=sorted(ref for name, _, ref in out if ref is not None and name in ("recent", "summary")),
        sections={name: sum(1 for n, t, _ in out if n == name and not t.startswith("\n")) for name in fill.sections},
    )


def memory_context(
    *, user, agent_slug: str, budget: int, query: str = "", window: SessionWindow | None = None,
    temporary: bool = False, now: dt.datetime | None = None,
) -> MemoryContext:
    """Build the memory context for ``user`` as seen by agent ``agent_slug``.

    Inputs: the user; the calling agent or expert slug; the token ``budget`` (≥ 1,
    tiktoken tokens, ``BIZMEMORY['TOKENIZER']``); an optional ``query`` (facts are then
    ranked by ``profiles.search`` relevance, else newest first); an optional
    ``window``, the turns of the user's current session as the pipeline reads them (the
    memory store does not look sessions up: the top layer, ``bizmemory.context.agent_context``,
    fetches the window and passes it): its last turns —
    the sliding window, newest kept first — plus an extractive rolling summary of its
    older user turns, first sentence of each quoted as ``- user: …``, PII masked, turns the
    injection detector flags left out; ``temporary`` (a temporary ``window`` counts as one).

    Output: a :class:`MemoryContext` whose text opens with the one-line instruction to
    ignore irrelevant memory, then profile, preferences, facts, pending confirmations
    (``profiles.confirmations.pending_confirmations`` when installed), summary and
    recent turns, and never exceeds ``budget`` tokens. With a session, memory gets at
    most 60 % of the budget and the summary a quarter of the rest. Switched-off memory,
    a switched-off expert or a temporary session give empty text and the reason.
    A bounded number of queries (≈ 10) whatever the number of items.

    Errors: ``ValueError`` when ``budget`` < 1.
    """
    if budget < 1:
        raise ValueError("budget must be >= 1 token")
    if window is not None:
        temporary = temporary or window.temporary
    reason, current = _context_gate(user, agent_slug, temporary)
    if reason:
        return MemoryContext("", 0, budget, reason=reason)
    if current is None:
        built = context_pack_build(user=user)
        current = (built.lang, built.sections)
    pack_lang, pack = current
    # Conversation turns only: tool output and the platform's system / developer prompts are
    # never quoted back; older turns the injection detector flags are left out (the window's rule).
    recent, older = (window.recent, window.older) if window is not None else ([], [])
    has_items = bool(pack["profile"]["ids"] or pack["preference"]["ids"] or pack["fact"]["ids"])
    if not has_items and not recent and not pack["pending"]["ids"]:
        return MemoryContext("", 0, budget, reason="no_memory")

    lang = detect_language(pack["lang_sample"] + [m[2] for m in recent[:5]]) if recent or not pack_lang else pack_lang
    heads = agent_text(lang)
    head = heads["instruction"]
    head_cost = count_tokens(head + "\n")
    if head_cost > budget:
        return MemoryContext("", 0, budget, reason="budget_too_small")
    words = sensitive_words_active()
    sig = _words_signature(words)
    fill = _Filler(budget - head_cost, lambda t: outbound_mask(t, words=words, words_sig=sig))
    mem_cap = fill.left if not recent else int(fill.left * 0.6)
    start = fill.left
    for kind in ("profile", "preference"):
        fill.take(kind, "\n" + heads[kind], _pack_lines(pack[kind]), mem_cap - (start - fill.left))
    fill.take("pending", "\n" + heads["pending"], _pack_lines(pack["pending"]), mem_cap - (start - fill.left))
    facts = _ranked_facts(user, list(_pack_lines(pack["fact"])), query, now) if query else _pack_lines(pack["fact"])
    fill.take("fact", "\n" + heads["fact"], facts, mem_cap - (start - fill.left))
    if recent:
        _take_turns(fill, heads, recent, older, window.flagged)

    return _assembled(fill, head, budget)


def memory_document_get(*, user, from_line: int | None = None, to_line: int | None = None) -> dict:
    """The user's rendered MEMORY.md, or lines ``from_line``..``to_line`` of it (1-based, inclusive).

    Returns ``{"text", "from_line", "to_line", "total_lines", "version"}``; lines the sanitizer
    flags now are masked in place (line numbers stay stable). Raises ``ValueError`` when
    ``from_line`` > ``to_line``. An empty document gives ``text`` "" and ``total_lines`` 0.
    """
    doc = MemoryDocument.objects.filter(user=user).only("markdown", "version").first()
    lines = (doc.markdown if doc else "").splitlines()
    total = len(lines)
    lo = max(1, from_line or 1)
    hi = min(total, to_line or total)
    if from_line and to_line and from_line > to_line:
        raise ValueError("from_line must be <= to_line")
    words = sensitive_words_active()
    sig = _words_signature(words)
    chosen = [outbound_mask(line, words=words, words_sig=sig) for line in lines[lo - 1 : hi]]
    return {
        "text": "\n".join(chosen),
        "from_line": lo if chosen else 0,
        "to_line": hi if chosen else 0,
        "total_lines": total,
        "version": doc.version if doc else 0,
    }


def memory_item_get(*, user, item_id: int) -> dict:
    """One of ``user``'s current memory items as a dict (``MemoryItem.as_dict`` plus ``confirmed_at``
    and ``fact_precision``), ``text`` the line of ``profiles.item_text`` masked as on the way out. Raises ``MemoryItem.DoesNotExist`` for an unknown id, a
    superseded item or another user's item (indistinguishable on purpose)."""
    item = MemoryItem.objects.current().get(user=user, pk=item_id)
    words = sensitive_words_active()
    return _item_out(item, words)


def _item_out(item: MemoryItem, words) -> dict:
    """``MemoryItem.as_dict`` plus ``confirmed_at`` and ``fact_precision``, ``text`` rendered by
    ``profiles.item_text`` and masked as on the way out."""
    d = item.as_dict()
    d["text"] = outbound_mask(item_text(item), words=words)
    d["fact_precision"] = fact_precision(text=item.text, fact_date=item.fact_date)
    d["confirmed_at"] = item.confirmed_at.isoformat()
    return d


def memory_items_page(
    *, user, kind: str | None = None, key: str | None = None, before_id: int | None = None, limit: int = 50
) -> tuple[list[dict], int | None]:
    """One page of ``user``'s current memory items, newest first (descending id), optionally of one
    ``kind`` and/or ``key``, starting below ``before_id`` (keyset pagination: stable while items
    are added). Returns ``(items, next_before_id)``, each item as :func:`memory_item_get` gives it
    (text masked as on the way out), ``next_before_id`` None on the last page. Two queries."""
    rows = MemoryItem.objects.current().filter(user=user)
    if kind:
        rows = rows.filter(kind=kind)
    if key:
        rows = rows.filter(key=key)
    if before_id:
        rows = rows.filter(pk__lt=before_id)
    page = list(rows.order_by("-pk")[: limit + 1])
    more = len(page) > limit
    page = page[:limit]
    words = sensitive_words_active() if page else []
    return [_item_out(item, words) for item in page], (page[-1].pk if more else None)


def search_index_chunks(*, user) -> list[dict]:
    """The chunks of the user's long-term memory that are in the search index (one per indexed
    current item), as stored: ``[{"item_id", "kind", "text", "model", "dim"}]`` in item order.
    Deleting or superseding an item removes its chunk (``profiles.search.memory_index_refresh``)."""
    return [
        {"item_id": item_id, "kind": kind, "text": text, "model": model, "dim": dim}
        for item_id, kind, text, model, dim in MemoryVector.objects.filter(
            user=user, source=VectorSource.ITEM, item__valid_until__isnull=True
        ).order_by("item_id").values_list("item_id", "kind", "text", "model", "dim")
    ]


def user_export(*, user) -> dict:
    """A user's whole long-term memory as a JSON-ready dict (the ``export_memory`` shape)."""
    items = MemoryItem.objects.current().filter(user=user).order_by("kind", "key", "id")
    doc = MemoryDocument.objects.filter(user=user).first()
    return {
        "items": [i.as_dict() for i in items],
        "memory_md": doc.markdown if doc else "",
        "journal": conversations().pending_journal(user_id=user.pk),
        "snapshots": [
            {"version": s.version, "reason": s.reason, "memory_md": s.memory_md, "items": s.items}
            for s in Snapshot.objects.filter(user=user).order_by("version")
        ],
        "search_index": search_index_chunks(user=user),
        "quarantine_count": QuarantineRecord.objects.filter(user=user).count(),
    }
