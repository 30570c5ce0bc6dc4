"""Extraction service: session messages after the watermark → sanitized candidates → journal.

Mechanics (issue "Extraction that remembers the right things"):
- **watermark**: only messages with ``id > session.watermark`` are read; the
  watermark advances in the same transaction that writes the journal.
- **lock**: a per-session lease taken by a conditional UPDATE with a row-count
  check (same on SQLite, PostgreSQL and MariaDB); a dead worker's lease expires
  after ``BIZMEMORY['EXTRACTION_LEASE_SECONDS']``.
- **throttle**: ``always`` / ``throttled`` / ``never`` per deployment, overridable
  per user; ``throttled`` runs at most once per user per window unless the
  trigger is the session end.
- **switches**: memory off, temporary or scheduled sessions, an expert excluded from extraction —
  no source. A *disabled* expert gets no memory injected and its own answers are no source, but
  what the user says in turns it handles still is (the eval README: disabled experts "must get no
  memory injected and write none of their own"; only ``experts_excluded_from_extraction`` is "the
  extraction-side source filter").
- **sanitizer**: a user message with a PII hit goes to the quarantine (encrypted original); its
  other candidates are read from the text with the PII masked and journaled when they hold no
  masked character (the message itself is never a search source nor sent to an LLM). A message
  with a sensitive word yields no candidate at all.
- **candidates** (:mod:`consolidation.extractor.service`): one batch per run — the trained
  extractor proposes, the rules guard and add where they are precise; injections and unsafe
  'preferences' are audited (``extraction.injection_ignored``: message id and reason only).
- **refiner** (optional, :mod:`consolidation.llm_refiner`): when an LLM endpoint is
  configured, one chat call per run gets the run's rule/model candidates (kept, dropped or
  reworded) and the sentences the trained model found borderline (the LLM may propose new
  candidates for them, checked like model spans, ``stage`` ``llm:<prompt version>``); a
  message that gains a proposal is journaled like the others. Any refiner failure keeps the
  rule/model result (the watermark advances only over messages the rules processed either way).
- **quiet period**: a run that finds the session silent for
  ``BIZMEMORY['EXTRACTION_QUIET_SECONDS']`` (0: at once) also processes an unanswered last user
  message, as ``session_end`` does, but keeps the throttle.
- **due work** (:mod:`consolidation.due`): every run that gets past the throttle settles the
  session's ``extraction_due_at`` from what is left after its watermark; a throttled run moves
  it to the end of the window; an ended session's run is final and ignores the throttle.
"""

from __future__ import annotations

import datetime as dt
import logging
import uuid
from dataclasses import dataclass, field

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from audit.sanitizer import analyze
from audit.services import audit_record, quarantine_file, sensitive_words_active
from profiles.models import MemorySettings
from profiles.services import expert_flags, memory_settings_get

from types import SimpleNamespace

from .due import extraction_due_defer, extraction_due_settle, throttled_until
from .extractor.service import candidates_extract
from .llm_refiner import candidates_refine, refiner_enabled
from .journal import journal_append
from .session_index import session_index_after_commit
from .models import INSTRUCTION_ROLES, Message, MessageRole, Session, SessionKind

log = logging.getLogger("bizmemory.extraction")


@dataclass
class ExtractionResult:
    """Outcome of one extraction run.

    ``status``: ``done``, ``nothing_new``, ``locked`` (another run holds the
    session), ``throttled`` (retry at ``retry_at``), ``never`` (policy), or
    ``skipped`` (no source: memory off / temporary / scheduled / expert off;
    the watermark still advances so those messages never become memory).
    """

    status: str
    journal_written: int = 0
    quarantined: int = 0
    messages_read: int = 0
    watermark: int = 0
    retry_at: dt.datetime | None = None
    reasons: list[str] = field(default_factory=list)
    refiner: str = ""  # LLM refiner status ("" when not called; see llm_refiner.RefineOutcome)
    proposed: int = 0  # LLM proposals accepted into the journal candidates
    proposals_rejected: list = field(default_factory=list)  # [(borderline sentence id, reason)]
    read_upto: int | None = None  # the newest message id the run read (None: it read none)


def _policy(ms: MemorySettings) -> str:
    return ms.extraction_policy or settings.BIZMEMORY["EXTRACTION_POLICY"]


def _lock(session_id: int, now: dt.datetime) -> str | None:
    token = uuid.uuid4().hex
    lease = dt.timedelta(seconds=settings.BIZMEMORY["EXTRACTION_LEASE_SECONDS"])
    got = Session.objects.filter(Q(locked_until__isnull=True) | Q(locked_until__lt=now), pk=session_id).update(
        lock_token=token, locked_until=now + lease
    )
    return token if got == 1 else None


def _unlock(session_id: int, token: str) -> None:
    Session.objects.filter(pk=session_id, lock_token=token).update(lock_token="", locked_until=None)


def _attribute_experts(messages: list[Message]) -> dict[int, str | None | bool]:
    """Map each user message id to the slug of the expert that answered it.

    The answering expert is the one on the first assistant/tool message after the
    user message; ``None`` means the entry agent; ``False`` means no answer yet. System
    and developer turns (``INSTRUCTION_ROLES``) are not answers: they are skipped.
    """
    out: dict[int, str | None | bool] = {}
    pending: list[int] = []
    for m in messages:
        if m.role in INSTRUCTION_ROLES:
            continue
        if m.role == MessageRole.USER:
            pending.append(m.pk)
            continue
        slug = m.expert.slug if m.expert_id else None
        for mid in pending:
            out[mid] = slug
        pending = []
    for mid in pending:
        out[mid] = False
    return out


def extraction_run(*, session_id: int, now: dt.datetime | None = None, trigger: str = "scheduled") -> ExtractionResult:
    """Run extraction for one session.

    Inputs: the session's primary key, the clock ``now`` (the replay command passes
    the replayed time), and ``trigger`` (``ingest``, ``scheduled``, ``quiet``,
    ``session_end``: informational, except that ``session_end``, like an ended session,
    bypasses the throttle; a run that finds the session silent for
    ``EXTRACTION_QUIET_SECONDS`` also processes an unanswered last user message). Returns an
    :class:`ExtractionResult`; afterwards the session's due time is settled
    (:mod:`consolidation.due`) unless another run holds the lease, which settles it. Raises
    ``Session.DoesNotExist`` for an unknown id.
    """
    now = now or timezone.now()
    session = Session.objects.select_related("user", "agent").get(pk=session_id)
    user = session.user
    ms = memory_settings_get(user=user)
    policy = _policy(ms)
    has_new = Message.objects.filter(session_id=session.pk, id__gt=session.watermark).exists()
    if not has_new:
        if session.extraction_due_at is not None:
            extraction_due_settle(session_id=session.pk, now=now, read_upto=None)
        return ExtractionResult("nothing_new", watermark=session.watermark)

    disabled, excluded = expert_flags(user=user)
    no_source = []
    if not ms.memory_enabled:
        no_source.append("memory_off")
    if session.temporary:
        no_source.append("temporary_session")
    if session.kind == SessionKind.SCHEDULED:
        no_source.append("scheduled_session")
    if session.agent.slug in excluded:
        no_source.append("owner_expert_excluded")
    if not no_source:
        if policy == "never":
            extraction_due_settle(session_id=session.pk, now=now, read_upto=None, parked=True)
            return ExtractionResult("never", watermark=session.watermark)
        final = trigger == "session_end" or session.ended_at is not None
        until = None if final else throttled_until(ms, now)
        if until is not None:
            extraction_due_defer(session_id=session.pk, until=until)
            return ExtractionResult("throttled", watermark=session.watermark, retry_at=until)

    token = _lock(session.pk, now)
    if token is None:
        return ExtractionResult("locked", watermark=session.watermark)
    try:
        result = _extract_locked(session, token, now, trigger, no_source, disabled, excluded)
    finally:
        _unlock(session.pk, token)
    if result.status != "locked":  # a run that lost its lease leaves the due time to the winner
        extraction_due_settle(session_id=session.pk, now=now, read_upto=result.read_upto)
    return result


def _extract_locked(session, token, now, trigger, no_source, disabled, excluded) -> ExtractionResult:
    session.refresh_from_db(fields=["watermark", "ended_at"])
    messages = list(
        Message.objects.filter(session_id=session.pk, id__gt=session.watermark).select_related("expert").order_by("id")
    )
    result = ExtractionResult("skipped" if no_source else "done", messages_read=len(messages), reasons=no_source)
    if not messages:
        result.status = "nothing_new"
        result.watermark = session.watermark
        return result
    result.read_upto = messages[-1].pk
    quiet = settings.BIZMEMORY["EXTRACTION_QUIET_SECONDS"]
    quiet_final = messages[-1].created_at <= now - dt.timedelta(seconds=quiet)
    final = trigger == "session_end" or quiet_final or session.ended_at is not None
    answered_by = _attribute_experts(messages)
    upto = messages[-1].pk
    if not final and not no_source:
        # An unanswered trailing user message waits: its expert is not known yet.
        unanswered = [m.pk for m in messages if answered_by.get(m.pk) is False]
        if unanswered:
            upto = min(unanswered) - 1
    # Which processed turns may feed memory and past-conversation search (Message.memory_source).
    source: dict[int, bool] = {m.pk: False for m in messages if m.pk <= upto}
    pending: list[tuple[Message, list, list]] = []
    masked: list[tuple[Message, list]] = []
    blocked: list[tuple[Message, list]] = []
    vetoed: list[tuple[Message, str]] = []
    if not no_source:
        pending, masked, blocked, vetoed = _read(messages, upto, answered_by, disabled, excluded, source)
    accepted = [(m, cands) for m, cands, _b in pending if cands]
    if pending and refiner_enabled():
        accepted, outcome = _refine(pending, messages)
        result.refiner, result.proposed, result.proposals_rejected = outcome.status, outcome.proposed, outcome.rejected
    accepted += masked
    with transaction.atomic():
        moved = Session.objects.filter(pk=session.pk, lock_token=token, watermark=session.watermark).update(
            watermark=max(upto, session.watermark), last_extracted_at=now
        )
        if moved != 1:
            # Our lease expired and another run took over: write nothing.
            transaction.set_rollback(True)
            return ExtractionResult("locked", watermark=session.watermark)
        for flag in (True, False):
            ids = [pk for pk, ok in source.items() if ok is flag]
            if ids:
                Message.objects.filter(pk__in=ids).update(memory_source=flag)
        written = 0
        for m, candidates in accepted:
            written += len(journal_append(
                user_id=session.user_id, session_id=session.pk, candidates=candidates,
                source_message_ids=[m.pk], observed_at=m.created_at, now=now,
            ))
        for m, code in vetoed:
            if code in ("injection", "unsafe_preference"):
                audit_record(action="extraction.injection_ignored", subject_user_id=session.user_id,
                             target_type="message", target_id=str(m.pk), details={"reason": code})
        for m, hits in blocked:
            quarantine_file(user=session.user, session_id=session.pk, session_external_id=session.external_id, message_ids=[m.pk], original=m.content, hits=hits, now=now)
        if not no_source:
            MemorySettings.objects.filter(user_id=session.user_id).update(last_extraction_at=now)
        if any(source.values()):
            session_index_after_commit(user_id=session.user_id)  # past-turn search, built after commit
    result.journal_written = written
    result.quarantined = len(blocked)
    result.watermark = max(upto, session.watermark)
    return result


def _refine(pending: list, messages: list[Message]):
    """Run the LLM refiner once over ``pending`` ``[(Message, [Candidate], borderline)]``; returns
    the ``[(Message, [Candidate])]`` to journal (the rule/model candidates on fallback; a message
    with only borderline sentences appears when a proposal for it was accepted) and the
    :class:`~consolidation.llm_refiner.RefineOutcome`. The assistant turn just before each user
    message is given as context so the model can tell a confirmed statement from an echo."""
    before: dict[int, str] = {}
    last_assistant = ""
    for m in messages:
        if m.role == MessageRole.USER:
            before[m.pk] = last_assistant
        elif m.role == MessageRole.ASSISTANT:
            last_assistant = m.content
    items = [(SimpleNamespace(content=m.content, previous_assistant=before.get(m.pk, ""), created_at=m.created_at, message=m), cands)
             for m, cands, _b in pending]
    outcome = candidates_refine(items=items, borderline=[b for _m, _c, b in pending])
    refined = [(ctx.message, cands) for ctx, cands in outcome.items if cands]
    return refined, outcome


# What stands in for a PII span when a quarantined turn is read for its other candidates.
_MASK = "\u2588"


def _masked(text: str, hits) -> str:
    """``text`` with every sanitizer hit replaced by mask characters (same length)."""
    out = list(text)
    for h in hits:
        out[h.start:h.end] = _MASK * (h.end - h.start)
    return "".join(out)


def _read(messages, upto, answered_by, disabled, excluded, source) -> tuple[list, list, list, list]:
    """Read the user turns up to ``upto`` that may feed memory; sets ``source[pk]`` for each
    processed turn (in place). Returns ``(pending, masked, blocked, vetoed)``: ``pending`` --
    ``[(Message, [Candidate], [(sentence Span, label, score)])]`` for read turns with candidates
    or borderline sentences; ``masked`` -- ``[(Message, [Candidate])]``: the PII-free candidates of
    quarantined turns, read with their PII masked (never sent to an LLM, never a search source);
    ``blocked`` -- ``[(Message, sanitizer hits)]``; ``vetoed`` -- ``[(Message, veto code)]``.
    A turn with a sensitive word yields nothing at all (the whole turn is confidential).
    Tool, system and developer turns are skipped (never read, never a source)."""
    pending, masked, blocked, vetoed, readable = [], [], [], [], []
    words = sensitive_words_active()
    for m in messages:
        if m.pk > upto or m.role == MessageRole.TOOL or m.role in INSTRUCTION_ROLES:
            # Tool output and the platform's system/developer prompts are never read for
            # memory and stay memory_source False (issue 17).
            continue
        if m.role == MessageRole.ASSISTANT:
            source[m.pk] = not (m.expert_id and (m.expert.slug in disabled or m.expert.slug in excluded))
            continue
        expert = answered_by.get(m.pk) or None
        if expert and expert in excluded:
            # "Keep what I tell <expert> out of memory" drops what the user says in turns that
            # expert handled. Switching an expert off ("<expert> may use my memory") only stops
            # injection and its own answers being a source: the user's words stay theirs
            # (templates/profiles/switches.html; the eval README's two settings).
            continue
        hits = analyze(m.content, sensitive_words=words)
        if hits:
            blocked.append((m, hits))
            if any(h.entity_type == "SENSITIVE_WORD" for h in hits):
                continue
        readable.append((m, _masked(m.content, hits) if hits else m.content, bool(hits)))
    # One candidate-generation batch for the whole run (the model encodes all turns at once).
    for (m, text, quarantined), found in zip(readable, candidates_extract([(t, m.created_at) for m, t, _q in readable])):
        if found.veto:
            # Injections and unsafe 'preferences' are audited, never memory (issue 13).
            log.info("message %s not read: %s", m.pk, found.veto)
            vetoed.append((m, found.veto))
            continue
        if found.pasted_veto:
            vetoed.append((m, found.pasted_veto))  # audited; the user's words before the paste are still read
        if quarantined:
            clean = [c for c in found.candidates if _MASK not in c.value and _MASK not in c.text]
            if clean:
                masked.append((m, clean))
            continue
        source[m.pk] = True
        if found.candidates or found.borderline:
            pending.append((m, list(found.candidates), list(found.borderline)))
    return pending, masked, blocked, vetoed
