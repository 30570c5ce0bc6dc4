"""``python manage.py purge_journal_archive [--now ISO]`` — delete archived journal entr(y/ies) past BIZMEMORY_ARCHIVE_RETENTION_DAYS (consolidation.retention.journal_archive_purge)."""

from consolidation.retention import journal_archive_purge

from ._retention_base import PurgeCommand


class Command(PurgeCommand):
    help = "Physically delete archived journal entr(y/ies) past BIZMEMORY_ARCHIVE_RETENTION_DAYS."
    purge = staticmethod(journal_archive_purge)
    what = "archived journal entr(y/ies) past BIZMEMORY_ARCHIVE_RETENTION_DAYS"
