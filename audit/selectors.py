"""Read-side selectors for the staff review pages. They never load the encrypted original."""

from __future__ import annotations

import datetime as dt

from django.db.models import Q, QuerySet
from django.utils import timezone

from .models import AuditLog, QuarantineRecord
from .permissions import VIEW_AUDIT_LOG, permission_require


def _type_q(hit_type: str) -> Q:
    # hit_types is "A,B,C": match whole names so PASSPORT does not match CN_PASSPORT.
    return (
        Q(hit_types=hit_type)
        | Q(hit_types__startswith=f"{hit_type},")
        | Q(hit_types__endswith=f",{hit_type}")
        | Q(hit_types__contains=f",{hit_type},")
    )


def _day_start(day: dt.date) -> dt.datetime:
    return timezone.make_aware(dt.datetime.combine(day, dt.time.min))


def quarantine_list(
    *, hit_type: str = "", date_from: dt.date | None = None, date_to: dt.date | None = None, username: str = ""
) -> QuerySet[QuarantineRecord]:
    """Quarantine records, newest first, with ``user`` and ``session`` joined and the
    encrypted original deferred. Filters (each optional): ``hit_type`` — one entity type
    among the record's hit types; ``date_from``/``date_to`` — inclusive calendar days of
    ``created_at`` in the current time zone; ``username`` — exact platform user id."""
    qs = QuarantineRecord.objects.select_related("user").defer("original_encrypted")
    if hit_type:
        qs = qs.filter(_type_q(hit_type))
    if date_from:
        qs = qs.filter(created_at__gte=_day_start(date_from))
    if date_to:
        qs = qs.filter(created_at__lt=_day_start(date_to + dt.timedelta(days=1)))
    if username:
        qs = qs.filter(user__username=username)
    return qs.order_by("-created_at", "-id")


def quarantine_detail(*, record_id: int) -> QuarantineRecord | None:
    """One quarantine record (user and session joined, original deferred), or None."""
    return (
        QuarantineRecord.objects.select_related("user").defer("original_encrypted").filter(pk=record_id).first()
    )


def audit_log_list(
    *, actor, action: str = "", subject_user_ids: QuerySet | list[int] | None = None, actor_username: str = "",
    date_from: dt.date | None = None, date_to: dt.date | None = None,
) -> QuerySet[AuditLog]:
    """Audit records, newest first, with ``actor`` and ``subject_user`` joined, for the staff
    account ``actor``, which must hold ``audit.view_auditlog`` (checked first:
    ``PermissionDenied`` otherwise, :func:`audit.permissions.permission_require`; issue 14).
    Filters (each optional): ``action`` — a prefix of the action name; ``subject_user_ids`` — the
    subject's account ids (a list or a ``values("pk")`` queryset); ``actor_username`` — the exact
    login of who acted; ``date_from``/``date_to`` — inclusive calendar days of ``created_at``
    in the current time zone."""
    permission_require(actor=actor, perm=VIEW_AUDIT_LOG)
    qs = AuditLog.objects.select_related("actor", "subject_user")
    if action:
        qs = qs.filter(action__startswith=action)
    if subject_user_ids is not None:
        qs = qs.filter(subject_user__in=subject_user_ids)
    if actor_username:
        qs = qs.filter(actor__username=actor_username)
    if date_from:
        qs = qs.filter(created_at__gte=_day_start(date_from))
    if date_to:
        qs = qs.filter(created_at__lt=_day_start(date_to + dt.timedelta(days=1)))
    return qs.order_by("-created_at", "-id")
