"""Read-side selector of the staff dashboard (/staff/dashboard/, issue #7 "A small dashboard").

One function, :func:`dashboard_figures`, gathers the four figures the page charts; the view only
renders them. Counts are whole numbers; ages are seconds. Every bar list carries ``pct``
(0–100, the bar's length relative to the largest value of its chart) so the template can
draw inline SVG without arithmetic.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter

from django.db.models import Count, Min
from django.utils import timezone
from django_q.models import Failure

from audit.models import QuarantineRecord
from profiles.models import MemoryItem
from audit.labels import hit_type_name

from .models import JournalEntry, JournalStatus

TOP_USERS = 20
LAST_FAILURES = 10


def _bars(pairs: list[tuple[str, int]]) -> list[dict]:
    top = max((n for _, n in pairs), default=0)
    return [{"label": label, "value": n, "pct": round(100 * n / top, 1) if top else 0.0} for label, n in pairs]


def dashboard_figures(*, now: dt.datetime | None = None) -> dict:
    """The staff dashboard's figures.

    Input: the clock ``now`` (aware datetime; default: now), used for the backlog age.
    Output: a dict with
    - ``memories``: up to 20 ``{"label": username, "value": current items, "pct"}``, most first
      (current = ``valid_until`` null, as the user's memory page counts them);
    - ``backlog``: ``{"pending": int, "oldest_created_at": datetime | None,
      "oldest_age_seconds": int | None}`` over journal entries with status ``pending``;
    - ``quarantine``: ``{"code": hit type, "label": its translated name, "value": records, "pct"}``
      per hit type, most first
      — a record with several types counts once for each (``hit_types`` is ``"A,B"``);
    - ``failures``: ``{"count": int, "last": [Failure, ...]}`` — django-q2's failed tasks,
      the 10 latest by ``stopped``.
    Raises nothing of its own; reads only.
    """
    now = now or timezone.now()
    per_user = (
        MemoryItem.objects.current()
        .values("user__username")
        .annotate(n=Count("id"))
        .order_by("-n", "user__username")[:TOP_USERS]
    )
    memories = _bars([(row["user__username"], row["n"]) for row in per_user])

    pending = JournalEntry.objects.filter(status=JournalStatus.PENDING)
    agg = pending.aggregate(n=Count("id"), oldest=Min("created_at"))
    oldest = agg["oldest"]
    backlog = {
        "pending": agg["n"],
        "oldest_created_at": oldest,
        "oldest_age_seconds": max(0, int((now - oldest).total_seconds())) if oldest else None,
    }

    by_type: Counter[str] = Counter()
    for hit_types, n in QuarantineRecord.objects.values_list("hit_types").annotate(n=Count("id")).order_by():
        for hit_type in filter(None, (hit_types or "").split(",")):
            by_type[hit_type] += n
    quarantine = [
        {**bar, "code": bar["label"], "label": hit_type_name(bar["label"])}
        for bar in _bars(sorted(by_type.items(), key=lambda kv: (-kv[1], kv[0])))
    ]

    failures = {
        "count": Failure.objects.count(),
        "last": list(Failure.objects.defer("args", "kwargs").order_by("-stopped")[:LAST_FAILURES]),
    }
    return {"memories": memories, "backlog": backlog, "quarantine": quarantine, "failures": failures}
