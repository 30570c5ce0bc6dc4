"""Audit log, quarantine and sensitive-word services."""

from __future__ import annotations

import datetime as dt
import functools
import os

from django.conf import settings
from django.db import transaction

from . import crypto
from .models import AuditLog, QuarantineRecord, SensitiveWord


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
    words.update(_words_from_file(settings.BIZMEMORY.get("SENSITIVE_WORDS_FILE", "")))
    words.update(SensitiveWord.objects.filter(active=True).values_list("word", flat=True))
    return sorted(words)


@transaction.atomic
def quarantine_file(*, user, session, message_ids: list[int], original: str, hits: list, now: dt.datetime) -> QuarantineRecord:
    """Store a blocked original, encrypted, with its detector hits; audit it without the content.

    ``hits`` are ``audit.sanitizer.Hit`` objects (char offsets into ``original``).
    The record expires ``BIZMEMORY['QUARANTINE_RETENTION_DAYS']`` days after ``now``.
    """
    from .sanitizer import mask

    rec = QuarantineRecord.objects.create(
        user=user,
        session=session,
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
