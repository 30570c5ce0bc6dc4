"""Due work on the domain rows (issue 14): when a session needs extraction, when a user needs
consolidation, and the leases that runs take.

The rule (the field's outbox/lease pattern, as in django-q2's own ``OrmQ`` lock and in
transactional outboxes): work is recorded **in the same transaction as the data that makes it
necessary**, on the row it concerns, and is only ever cleared by a run that recomputes it from
the state it finds under that row's lock. So no crash, broker loss or database outage between
"the turn is stored" and "the turn is extracted" can drop the work: at worst it waits for the
next sweep (:mod:`consolidation.sweep`, every minute) plus a dead holder's lease.

- ``Session.extraction_due_at``: set to *now* by every ingest that stores a turn and by a
  session end; settled by each extraction run (:func:`extraction_due_settle`) to NULL (nothing
  past the watermark), now (turns newer than the run read), or the end of the quiet period (an
  unanswered last user turn waits for its answer); moved to the end of the throttle window by a
  throttled run; cleared for a user whose policy is ``never`` (parked until the policy changes,
  :func:`extraction_wake`).
- ``MemorySettings.consolidation_due_at``: set to *now* by every journal append; settled by each
  consolidation run (:func:`consolidation_due_settle`).
- Leases: ``Session.lock_token/locked_until`` (taken in :mod:`consolidation.extraction`) and
  ``MemorySettings.consolidation_lock_token/_locked_until`` (:func:`consolidation_claim`), both
  by a conditional UPDATE with a row-count check, the same on SQLite, PostgreSQL and MariaDB.

Settling reads the messages with a plain SELECT *after* locking the session row: an ingest
updates that row in its own transaction, so its turns are either committed and seen, or its
UPDATE waits and sets the due time again after the settle (Django runs MySQL/MariaDB at READ
COMMITTED, so the read sees rows committed before it).
"""

from __future__ import annotations

import datetime as dt
import uuid

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.db.models.functions import Greatest

from profiles.models import ExtractionPolicy, MemorySettings

from .models import JournalEntry, JournalStatus, Message, Session


def lease_free(prefix: str, now: dt.datetime) -> Q:
    """The filter "no live lease" on ``<prefix>locked_until`` (NULL or in the past)."""
    return Q(**{f"{prefix}locked_until__isnull": True}) | Q(**{f"{prefix}locked_until__lt": now})


def throttled_until(ms: MemorySettings | None, now: dt.datetime) -> dt.datetime | None:
    """When the user's throttle window ends, or None when a run may start now. Inputs: the
    user's MemorySettings (None = defaults) and the clock. The rule: policy ``throttled`` (the
    user's, else ``BIZMEMORY['EXTRACTION_POLICY']``) allows one run per
    ``EXTRACTION_WINDOW_SECONDS`` per user."""
    policy = (ms.extraction_policy if ms else "") or settings.BIZMEMORY["EXTRACTION_POLICY"]
    last = ms.last_extraction_at if ms else None
    if policy != ExtractionPolicy.THROTTLED or last is None:
        return None
    end = last + dt.timedelta(seconds=settings.BIZMEMORY["EXTRACTION_WINDOW_SECONDS"])
    return end if now < end else None


def extraction_due_mark(
    *, session_id: int, now: dt.datetime, user_turn_id: int | None = None, final: bool = False,
) -> bool:
    """Record that a session needs extraction and say whether a fast-path task is worth queueing.

    Inputs: the session's primary key, the clock, ``user_turn_id`` (the newest user turn just
    stored, raising ``last_user_message_id``; None for none) and ``final`` (the session ended:
    due now, whatever was due before). Call inside the transaction that stored the turns
    (ingest, session end); the session row is locked first. The due time becomes now, except
    that work already due now keeps its time and a throttled user's deferral stands. Returns
    False when work was already due now (a queued or running run reads these turns, or settles
    the session due again and re-queues itself) or the user is throttled; True otherwise."""
    prior = Session.objects.select_for_update().filter(pk=session_id).values_list("extraction_due_at", "user_id").first()
    if prior is None:
        return False
    due, user_id = prior
    useful = True
    if final:
        due = now
    elif due is None or due > now:
        until = throttled_until(MemorySettings.objects.filter(user_id=user_id).first(), now)
        useful = until is None
        due = now if until is None else (due or until)
    else:
        useful = False  # already due now
    fields = {"extraction_due_at": due}
    if user_turn_id:
        fields["last_user_message_id"] = Greatest(F("last_user_message_id"), user_turn_id)
    Session.objects.filter(pk=session_id).update(**fields)
    return useful


def extraction_due_defer(*, session_id: int, until: dt.datetime) -> None:
    """A throttled run: the session is due again at ``until`` (the end of the user's throttle
    window). An ended session is left due: its final run ignores the throttle."""
    Session.objects.filter(pk=session_id, ended_at__isnull=True).update(extraction_due_at=until)


@transaction.atomic
def extraction_due_settle(
    *, session_id: int, now: dt.datetime, read_upto: int | None, parked: bool = False,
) -> dt.datetime | None:
    """Recompute a session's due time after a run; returns it (None = nothing due).

    Inputs: the session's primary key, the clock, ``read_upto`` (the newest message id the run
    read, None when it read none) and ``parked`` (policy ``never``: nothing is due until the
    policy changes). Under the session row's lock: no turn past the watermark → None (and the
    watermark is raised to ``last_user_message_id`` when turns it counted were deleted); the
    session ended, or turns newer than ``read_upto`` → now; otherwise the run held back an
    unanswered last user turn → its time + ``EXTRACTION_QUIET_SECONDS`` (never before now)."""
    row = (
        Session.objects.select_for_update().filter(pk=session_id)
        .values("watermark", "ended_at", "last_user_message_id").first()
    )
    if row is None:
        return None
    rest = list(Message.objects.filter(session_id=session_id, id__gt=row["watermark"]).order_by("id")
                .values_list("id", "created_at"))
    fields: dict = {}
    if parked:
        due = None
    elif not rest:
        due = None
        if row["watermark"] < row["last_user_message_id"]:
            fields["watermark"] = row["last_user_message_id"]
    elif row["ended_at"] is not None or read_upto is None or rest[-1][0] > read_upto:
        due = now
    else:
        quiet = dt.timedelta(seconds=settings.BIZMEMORY["EXTRACTION_QUIET_SECONDS"])
        due = max(now, rest[-1][1] + quiet)
    Session.objects.filter(pk=session_id).update(extraction_due_at=due, **fields)
    return due


def _never(default_policy: str) -> Q:
    q = Q(user__memory_settings__extraction_policy=ExtractionPolicy.NEVER)
    if default_policy == ExtractionPolicy.NEVER:
        q |= Q(user__memory_settings__extraction_policy="") | Q(user__memory_settings__isnull=True)
    return q


def sessions_behind(*, now: dt.datetime):
    """The impossible state, as a queryset of sessions: a user turn past the watermark, nothing
    due, no live lease, and the user's policy is not ``never`` (a parked session). The sweep
    repairs and reports every one it finds (it should find none)."""
    return (
        Session.objects.filter(extraction_due_at__isnull=True, watermark__lt=F("last_user_message_id"))
        .filter(lease_free("", now))
        .exclude(_never(settings.BIZMEMORY["EXTRACTION_POLICY"]))
    )


def extraction_wake(*, user_id: int, now: dt.datetime) -> int:
    """Make every session of the user with turns past its watermark due now (a policy changed
    from ``never``); returns how many. Call inside the transaction that changed the policy."""
    return Session.objects.filter(
        user_id=user_id, extraction_due_at__isnull=True, watermark__lt=F("last_user_message_id"),
    ).update(extraction_due_at=now)


def consolidation_due_mark(*, user_id: int, now: dt.datetime) -> None:
    """Record that a user's journal needs consolidation (``consolidation_due_at = now``); creates
    the user's MemorySettings row when missing. Call inside the transaction that appended."""
    if not MemorySettings.objects.filter(user_id=user_id).update(consolidation_due_at=now):
        MemorySettings.objects.get_or_create(user_id=user_id)
        MemorySettings.objects.filter(user_id=user_id).update(consolidation_due_at=now)


def consolidation_claim(*, user_id: int, now: dt.datetime) -> str | None:
    """Take the user's consolidation lease (``CONSOLIDATION_LEASE_SECONDS``) by a conditional
    UPDATE; returns the lease token, or None when another live run holds it."""
    token = uuid.uuid4().hex
    lease = dt.timedelta(seconds=settings.BIZMEMORY["CONSOLIDATION_LEASE_SECONDS"])
    got = MemorySettings.objects.filter(lease_free("consolidation_", now), user_id=user_id).update(
        consolidation_lock_token=token, consolidation_locked_until=now + lease,
    )
    return token if got == 1 else None


@transaction.atomic
def consolidation_due_settle(
    *, user_id: int, token: str, now: dt.datetime, status: str | None, retry_at: dt.datetime | None = None,
) -> dt.datetime | None:
    """Release the consolidation lease ``token`` and recompute the user's due time from the
    run's ``status`` (None = the run raised); returns it. ``too_soon`` → ``retry_at``; ``held``
    (awaits an admin) → None; a failed run → now + the lease (back off); otherwise now when
    journal entries are still pending, else None. Counted under the settings row's lock, so an
    append that committed first is seen and one that commits later marks the user again."""
    MemorySettings.objects.select_for_update().filter(user_id=user_id).values_list("pk").first()
    if status is None:
        due = now + dt.timedelta(seconds=settings.BIZMEMORY["CONSOLIDATION_LEASE_SECONDS"])
    elif status == "too_soon":
        due = retry_at or now
    elif status == "held":
        due = None
    else:
        pending = JournalEntry.objects.filter(user_id=user_id, status=JournalStatus.PENDING).exists()
        due = now if pending else None
    MemorySettings.objects.filter(user_id=user_id).update(consolidation_due_at=due)
    MemorySettings.objects.filter(user_id=user_id, consolidation_lock_token=token).update(
        consolidation_lock_token="", consolidation_locked_until=None,
    )
    return due
