"""Quarantine retention: physically forget blocked originals on schedule.

``quarantine_purge`` is the entry point for the project's scheduled purge job
(``consolidation/retention.py``) and the ``purge_quarantine`` command.
"""

from __future__ import annotations

import datetime as dt

from django.db import transaction
from django.utils import timezone

from .models import QuarantineRecord
from .services import audit_record


@transaction.atomic
def quarantine_purge(*, now: dt.datetime | None = None) -> int:
    """Physically delete every quarantine record whose ``expires_at`` (filing time +
    ``BIZMEMORY['QUARANTINE_RETENTION_DAYS']`` days) is at or before ``now`` (aware datetime,
    default: the current time). Returns the number of records deleted; when it is > 0 writes
    one ``quarantine.purged`` audit record holding that count only. Rule: issue #4, "each
    record expires after the quarantine retention (days) and is then physically deleted by a
    scheduled job". Safe to run concurrently: a row deleted twice counts once."""
    deleted = QuarantineRecord.objects.clear_expired(now or timezone.now())
    if deleted:
        audit_record(action="quarantine.purged", target_type="quarantine_record", details={"count": deleted})
    return deleted
