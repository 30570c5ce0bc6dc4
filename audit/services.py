"""Audit log, quarantine and sensitive-word services."""

from __future__ import annotations

import datetime as dt
import functools
import os
import secrets
from dataclasses import dataclass, field

from django.conf import settings
from django.core import signing
from django.core.cache import cache
from django.db import DatabaseError, connection, transaction
from django.utils import timezone
from redis.exceptions import RedisError

from . import crypto
from .models import AuditLog, QuarantineRecord, SensitiveWord
from .permissions import DELETE_NOW, RELEASE, REVEAL, permission_require
from .ports import quarantine_resubmitter
from .sanitizer import analyze, mask


def audit_record(
    *,
    action: str,
    actor=None,
    subject_user=None,
    subject_user_id: int | None = None,
    target_type: str = "",
    target_id: str = "",
    details: dict | None = None,
) -> AuditLog:
    """Append one audit record. ``details`` must hold ids, types and counts only — never memory text or PII."""
    return AuditLog.objects.create(
        action=action,
        actor=actor,
        subject_user_id=subject_user.pk if subject_user is not None else subject_user_id,
        target_type=target_type,
        target_id=target_id,
        details=details or {},
    )


@functools.lru_cache(maxsize=8)
def _words_from_file_cached(path: str, mtime: float) -> tuple[str, ...]:
    with open(path, encoding="utf-8") as fh:
        return tuple(w.strip() for w in fh if w.strip() and not w.startswith("#"))


def _words_from_file(path: str) -> tuple[str, ...]:
    if not path:
        return ()
    return _words_from_file_cached(path, os.path.getmtime(path))


def sensitive_words_active() -> list[str]:
    """The sensitive words in force: ``BIZMEMORY['SENSITIVE_WORDS']``, the lines of
    ``BIZMEMORY['SENSITIVE_WORDS_FILE']`` and the active SensitiveWord rows (sorted list of str)."""
    words = {w.strip() for w in settings.BIZMEMORY["SENSITIVE_WORDS"] if w.strip()}
    words.update(_words_from_file(settings.BIZMEMORY["SENSITIVE_WORDS_FILE"]))
    # Raw SQL: this runs on every context request (the hot path), where the ORM's query
    # compilation costs more than the query itself.
    table = connection.ops.quote_name(SensitiveWord._meta.db_table)
    with connection.cursor() as cur:
        cur.execute(f"SELECT word FROM {table} WHERE active = %s", [True])
        words.update(w for (w,) in cur.fetchall())
    return sorted(words)


@transaction.atomic
def quarantine_file(*, user, session_id: int | None, session_external_id: str = "", message_ids: list[int], original: str, hits: list, now: dt.datetime) -> QuarantineRecord:
    """Store a blocked original, encrypted, with its detector hits; audit it without the content.

    ``hits`` are ``audit.sanitizer.Hit`` objects (char offsets into ``original``).
    The record expires ``BIZMEMORY['QUARANTINE_RETENTION_DAYS']`` days after ``now``.
    """
    rec = QuarantineRecord.objects.create(
        user=user,
        session_id=session_id,
        session_external_id=session_external_id or "",
        message_ids=list(message_ids),
        original_encrypted=crypto.encrypt(original),
        hits=[{"type": h.entity_type, "start": h.start, "end": h.end, "score": round(h.score, 3)} for h in hits],
        hit_types=",".join(sorted({h.entity_type for h in hits})),
        preview=mask(original, hits),
        created_at=now,
        expires_at=now + dt.timedelta(days=settings.BIZMEMORY["QUARANTINE_RETENTION_DAYS"]),
    )
    audit_record(
        action="quarantine.filed",
        subject_user=user,
        target_type="quarantine_record",
        target_id=str(rec.pk),
        details={"hit_types": sorted({h.entity_type for h in hits}), "message_ids": list(message_ids)},
    )
    return rec


# --------------------------------------------------------------------------- review actions
# Called by the staff review pages (audit/views.py). Each one audits who did what to
# which record — ids, types and counts, never the original or its PII.


class QuarantineGone(LookupError):
    """The quarantine record does not exist (never did, expired and purged, or another
    admin deleted / resubmitted it first)."""


class QuarantineUnreadable(RuntimeError):
    """The stored original cannot be decrypted with the configured key
    (``BIZMEMORY_QUARANTINE_KEY`` / ``_KEY_FILE`` changed since it was filed)."""


def _record_get(record_id: int) -> QuarantineRecord:
    try:
        return QuarantineRecord.objects.select_related("user").get(pk=record_id)
    except QuarantineRecord.DoesNotExist as exc:
        raise QuarantineGone(f"quarantine record {record_id} does not exist") from exc


def _original(rec: QuarantineRecord) -> str:
    try:
        return crypto.decrypt(rec.original_encrypted)
    except (crypto.InvalidToken, ValueError) as exc:
        raise QuarantineUnreadable(f"quarantine record {rec.pk} cannot be decrypted with the configured key") from exc


def _hit_types(rec: QuarantineRecord) -> list[str]:
    return sorted({h["type"] for h in rec.hits})


@transaction.atomic
def quarantine_reveal(*, record_id: int, actor) -> str:
    """Decrypt and return the original text of quarantine record ``record_id`` for ``actor``
    (a staff user), writing a ``quarantine.revealed`` audit record (actor, time, record id,
    hit types — never the text). Rule: issue #4, "revealing the original is an explicit
    action that writes an audit record".

    Errors: ``PermissionDenied`` unless ``actor`` is staff holding ``audit.reveal_quarantine``
    (checked first: :func:`audit.permissions.permission_require`); :class:`QuarantineGone` for an
    unknown id; :class:`QuarantineUnreadable` when the key cannot decrypt it (nothing is audited
    then: nothing was seen).
    """
    permission_require(actor=actor, perm=REVEAL)
    rec = _record_get(record_id)
    original = _original(rec)
    audit_record(
        action="quarantine.revealed", actor=actor, subject_user_id=rec.user_id,
        target_type="quarantine_record", target_id=str(rec.pk), details={"hit_types": _hit_types(rec)},
    )
    return original


REVEAL_TOKEN_SECONDS = 60
_REVEAL_SALT = "audit.quarantine-reveal"


class RevealRefused(PermissionError):
    """A reveal token that may not be used; ``reason`` says why: ``invalid`` (tampered, or for
    another record), ``other_user`` (issued to another account), ``expired`` (older than
    ``REVEAL_TOKEN_SECONDS``) or ``used`` (already redeemed once)."""

    def __init__(self, reason: str):
        super().__init__(f"reveal token refused: {reason}")
        self.reason = reason


class RevealUnavailable(RuntimeError):
    """The shared cache that holds reveal tokens cannot be reached (Redis down, the cache table
    failing): no token can be registered or spent, so nothing is revealed — the reveal fails
    closed. ``stage`` is ``issue`` (the POST) or ``redeem`` (the GET)."""

    def __init__(self, stage: str):
        super().__init__(f"reveal tokens unavailable ({stage}): the shared cache cannot be reached")
        self.stage = stage


# What the shared cache raises when it cannot be reached: redis-py's errors (RedisCache) and the
# database's (bizmemory.cache.DatabaseCache); profiles.ratelimit catches the same two.
_CACHE_DOWN = (RedisError, DatabaseError)


def _reveal_nonce_key(nonce: str) -> str:
    return f"audit:quarantine-reveal:{nonce}"


def _reveal_unavailable(*, record_id: int, actor, stage: str) -> RevealUnavailable:
    """Audit a reveal that failed because the cache is down (``quarantine.reveal_failed``: actor,
    record id, stage, reason — nothing was decrypted or shown) and return the error to raise.
    A staff member's attempt to see decrypted PII is part of the trail even when it fails; the
    action name says it failed, so the row never reads as a reveal."""
    rec = QuarantineRecord.objects.filter(pk=record_id).values_list("user_id", flat=True).first()
    audit_record(
        action="quarantine.reveal_failed", actor=actor, subject_user_id=rec, target_type="quarantine_record",
        target_id=str(record_id), details={"reason": "cache_unavailable", "stage": stage},
    )
    return RevealUnavailable(stage)


def quarantine_reveal_token_issue(*, record_id: int, actor) -> str:
    """A signed, single-use token that lets ``actor`` see record ``record_id`` once, within
    ``REVEAL_TOKEN_SECONDS`` seconds (post/redirect/get: the POST gets the token, the GET it
    redirects to redeems it, so a browser refresh cannot reveal again). The token carries
    the record id, the actor's id and a random nonce, signed with ``SECRET_KEY``
    (``django.core.signing``, timestamped); the nonce is registered in the shared cache
    (``CACHES["default"]``: Redis or the database table, one for every process) and removed
    on redemption. Nothing is decrypted or audited here. Rule: issue 17, "Reveal renders at
    the POST URL".

    Errors: ``PermissionDenied`` unless ``actor`` is staff holding ``audit.reveal_quarantine``
    (checked first, as :func:`quarantine_reveal` does); :class:`QuarantineGone` for an unknown record;
    :class:`RevealUnavailable` when the cache cannot store the nonce (no token then; audited as
    ``quarantine.reveal_failed``).
    """
    permission_require(actor=actor, perm=REVEAL)
    _record_get(record_id)
    nonce = secrets.token_urlsafe(18)
    try:
        # add, not set: the database cache swallows a failed write and answers False, which must
        # not become a token whose nonce was never stored.
        stored = cache.add(_reveal_nonce_key(nonce), actor.pk, timeout=REVEAL_TOKEN_SECONDS + 5)
    except _CACHE_DOWN:
        stored = False
    if not stored:
        raise _reveal_unavailable(record_id=record_id, actor=actor, stage="issue")
    return signing.dumps({"r": record_id, "u": actor.pk, "n": nonce}, salt=_REVEAL_SALT, compress=True)


def quarantine_reveal_token_redeem(*, token: str, record_id: int, actor) -> str:
    """Redeem ``token`` (from :func:`quarantine_reveal_token_issue`) for record ``record_id``:
    consume it and return the decrypted original through :func:`quarantine_reveal`, which
    writes the one ``quarantine.revealed`` audit record.

    Errors: :class:`RevealRefused` (nothing decrypted, nothing audited; a refusal for another
    account or a bad signature leaves the token usable by its owner); :class:`QuarantineGone`,
    :class:`QuarantineUnreadable` as :func:`quarantine_reveal` (the token is spent then);
    :class:`RevealUnavailable` when the cache cannot be reached to spend the token: whether it
    was used cannot be known, so nothing is revealed (fail closed; audited as
    ``quarantine.reveal_failed``, never ``quarantine.revealed``; the token is not spent).
    """
    try:
        claim = signing.loads(token, salt=_REVEAL_SALT, max_age=REVEAL_TOKEN_SECONDS)
    except signing.SignatureExpired as exc:
        raise RevealRefused("expired") from exc
    except signing.BadSignature as exc:
        raise RevealRefused("invalid") from exc
    if not isinstance(claim, dict) or claim.get("r") != record_id or not isinstance(claim.get("n"), str):
        raise RevealRefused("invalid")
    if claim.get("u") != actor.pk:
        raise RevealRefused("other_user")
    # Deleting the nonce is the claim: of two requests with one token only one deletes it.
    try:
        spent = cache.delete(_reveal_nonce_key(claim["n"]))
    except _CACHE_DOWN:
        raise _reveal_unavailable(record_id=record_id, actor=actor, stage="redeem") from None
    if not spent:
        raise RevealRefused("used")
    return quarantine_reveal(record_id=record_id, actor=actor)


@transaction.atomic
def quarantine_delete(*, record_id: int, actor) -> None:
    """Physically delete quarantine record ``record_id`` now, and mask the PII in the raw
    message(s) it came from (issue 14, "kept-out PII"); audited as ``quarantine.deleted`` (actor,
    record id, hit types, messages masked). The delete is conditional: when another admin or the purge
    removed the row first, raises :class:`QuarantineGone` and audits nothing. Raises
    ``PermissionDenied`` first unless ``actor`` is staff holding ``audit.delete_quarantine_now``
    (:func:`audit.permissions.permission_require`)."""
    permission_require(actor=actor, perm=DELETE_NOW)
    rec = _record_get(record_id)
    if not _claim(rec):
        raise QuarantineGone(f"quarantine record {record_id} was already removed")
    masked = quarantine_resubmitter().messages_redact(user_id=rec.user_id, message_ids=list(rec.message_ids))
    audit_record(
        action="quarantine.deleted", actor=actor, subject_user_id=rec.user_id,
        target_type="quarantine_record", target_id=str(rec.pk),
        details={"hit_types": _hit_types(rec), "messages_masked": masked},
    )


def _claim(rec: QuarantineRecord) -> bool:
    # The row itself is the lock: whoever deletes it (rowcount 1) acts on it, once.
    _, per_model = QuarantineRecord.objects.filter(pk=rec.pk).delete()
    return per_model.get(QuarantineRecord._meta.label, 0) == 1


@dataclass
class FalsePositiveResult:
    """Outcome of :func:`quarantine_mark_false_positive`.

    ``candidates``: memory candidates extracted from the original; ``written``: journal
    entries written (their ids in ``journal_entry_ids``); ``dropped``: candidates refused
    because their text still has a hit outside the allowed spans; ``reason``: ``ok``,
    ``injection`` (the original tries to write into memory: nothing extracted) or
    ``memory_off`` (the user has switched memory off since: nothing written).
    """

    candidates: int = 0
    written: int = 0
    dropped: int = 0
    journal_entry_ids: list[int] = field(default_factory=list)
    reason: str = "ok"


def _only_allowed_hits(text: str, allowed: set[str], words: list[str]) -> bool:
    """True when every hit in ``text`` lies inside one of the ``allowed`` strings."""
    return all(
        any(text[h.start : h.end].strip() in a for a in allowed)
        for h in analyze(text, sensitive_words=words)
    )


def quarantine_mark_false_positive(*, record_id: int, actor, now: dt.datetime | None = None) -> FalsePositiveResult:
    """Re-submit the message behind quarantine record ``record_id`` with its flagged spans
    allowed for this one item, then delete the record.

    Steps (rule: issue #4, "mark a false positive, which re-submits the candidate with the
    flagged span allowed for that one item (audited)"): decrypt the original; claim (delete)
    the record; hand the original to the pipeline's registered resubmitter
    (:mod:`audit.ports`, ``consolidation.quarantine_review``), which skips injections and
    memory that is off, extracts candidates at the message time and journals those whose
    ``text`` and ``value`` have no sanitizer hit (sensitive words in force now) outside a string
    the record flagged; audit ``quarantine.false_positive`` with counts and ids only. All in
    one transaction. ``now`` (aware datetime, default: the current time) stamps the journal
    entries.

    Errors: ``PermissionDenied`` first unless ``actor`` is staff holding
    ``audit.release_quarantine`` (:func:`audit.permissions.permission_require`);
    :class:`QuarantineGone` (unknown id, or another admin acted first: nothing is written);
    :class:`QuarantineUnreadable` (wrong key: nothing changes).
    """
    permission_require(actor=actor, perm=RELEASE)
    now = now or timezone.now()
    rec = _record_get(record_id)
    original = _original(rec)
    allowed = {original[h["start"] : h["end"]].strip() for h in rec.hits} - {""}
    words = sensitive_words_active()
    result = FalsePositiveResult()
    with transaction.atomic():
        if not _claim(rec):
            raise QuarantineGone(f"quarantine record {record_id} was already removed")
        outcome = quarantine_resubmitter().resubmit(
            user_id=rec.user_id, session_id=rec.session_id, message_ids=list(rec.message_ids), original=original,
            keep=lambda text: _only_allowed_hits(text, allowed, words), recorded_at=rec.created_at, now=now,
        )
        result.candidates, result.dropped, result.reason = outcome.candidates, outcome.dropped, outcome.reason
        result.journal_entry_ids = list(outcome.journal_entry_ids)
        result.written = len(result.journal_entry_ids)
        audit_record(
            action="quarantine.false_positive", actor=actor, subject_user_id=rec.user_id,
            target_type="quarantine_record", target_id=str(rec.pk),
            details={
                "hit_types": _hit_types(rec), "message_ids": list(rec.message_ids), "reason": result.reason,
                "candidates": result.candidates, "written": result.written, "dropped": result.dropped,
                "journal_entry_ids": result.journal_entry_ids,
            },
        )
    return result


@transaction.atomic
def quarantine_clear_user(*, user, actor=None) -> int:
    """Delete all of ``user``'s quarantine records now and mask the PII in the raw messages they
    came from; returns how many records. Audited as ``quarantine.cleared_by_user`` with the count,
    the hit types and the messages masked — never the previews or originals. Rule: issue #7, "a
    button to delete those quarantine records now"; issue 14, "kept-out PII"."""
    qs = QuarantineRecord.objects.filter(user=user)
    rows = list(qs.values_list("hit_types", "message_ids"))
    types = sorted({t for hit_types, _ in rows for t in hit_types.split(",") if t})
    message_ids = sorted({m for _, ids in rows for m in (ids or []) if isinstance(m, int)})
    count = qs.delete()[1].get(QuarantineRecord._meta.label, 0)
    if count:
        masked = quarantine_resubmitter().messages_redact(user_id=user.pk, message_ids=message_ids)
        audit_record(
            action="quarantine.cleared_by_user", actor=actor or user, subject_user=user, target_type="user",
            target_id=str(user.pk), details={"count": count, "hit_types": types, "messages_masked": masked},
        )
    return count
