"""``python manage.py purge_journal [--now ISO]`` — delete pending journal entr(y/ies) past BIZMEMORY_JOURNAL_RETENTION_DAYS (consolidation.retention.journal_pending_purge)."""

from consolidation.retention import journal_pending_purge

from ._retention_base import PurgeCommand


class Command(PurgeCommand):
    help = "Physically delete pending journal entr(y/ies) past BIZMEMORY_JOURNAL_RETENTION_DAYS."
    purge = staticmethod(journal_pending_purge)
    what = "pending journal entr(y/ies) past BIZMEMORY_JOURNAL_RETENTION_DAYS"
