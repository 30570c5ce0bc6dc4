"""Quarantine retention: QuarantineRecord.objects.clear_expired, audit.retention.quarantine_purge,
and the purge_quarantine command."""

import datetime as dt
from io import StringIO

from django.core.management import call_command

from audit.models import AuditLog, QuarantineRecord
from audit.retention import quarantine_purge
from audit.sanitizer import analyze
from audit.services import quarantine_file
from profiles.services import user_ensure

TEXT = "手机13912345678"


def _file(now, username="alice"):
    return quarantine_file(user=user_ensure(external_id=username), session_id=None, message_ids=[], original=TEXT,
                           hits=analyze(TEXT), now=now)


def test_records_expire_after_the_configured_retention_days(db, t0, settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, QUARANTINE_RETENTION_DAYS=7)
    assert _file(t0).expires_at == t0 + dt.timedelta(days=7)


def test_clear_expired_deletes_exactly_the_records_past_retention(db, t0, settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, QUARANTINE_RETENTION_DAYS=30)
    old = _file(t0 - dt.timedelta(days=31))
    edge = _file(t0 - dt.timedelta(days=30))  # expires exactly now
    young = _file(t0 - dt.timedelta(days=30) + dt.timedelta(seconds=1))
    fresh = _file(t0, username="bob")
    assert QuarantineRecord.objects.clear_expired(t0) == 2
    assert set(QuarantineRecord.objects.values_list("pk", flat=True)) == {young.pk, fresh.pk}
    assert not QuarantineRecord.objects.filter(pk__in=[old.pk, edge.pk]).exists()
    assert QuarantineRecord.objects.clear_expired(t0) == 0


def test_quarantine_purge_audits_the_count_only(db, t0):
    _file(t0 - dt.timedelta(days=40))
    _file(t0 - dt.timedelta(days=35), username="bob")
    kept = _file(t0)
    assert quarantine_purge(now=t0) == 2
    assert list(QuarantineRecord.objects.values_list("pk", flat=True)) == [kept.pk]
    log = AuditLog.objects.get(action="quarantine.purged")
    assert log.details == {"count": 2} and log.actor is None
    assert quarantine_purge(now=t0) == 0
    assert AuditLog.objects.filter(action="quarantine.purged").count() == 1


def test_quarantine_purge_defaults_to_the_current_time(db):
    from django.utils import timezone

    now = timezone.now()
    _file(now - dt.timedelta(days=31))
    kept = _file(now - dt.timedelta(days=29))
    assert quarantine_purge() == 1
    assert list(QuarantineRecord.objects.values_list("pk", flat=True)) == [kept.pk]


def test_purge_quarantine_command_deletes_expired_records(db):
    from django.utils import timezone

    now = timezone.now()
    _file(now - dt.timedelta(days=31))
    kept = _file(now)
    out = StringIO()
    call_command("purge_quarantine", stdout=out)
    assert out.getvalue().strip() == "purged 1 quarantine record(s)"
    assert list(QuarantineRecord.objects.values_list("pk", flat=True)) == [kept.pk]
