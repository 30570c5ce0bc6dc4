"""``python manage.py purge_messages [--now ISO]`` — delete extracted session message(s) past BIZMEMORY_MESSAGE_RETENTION_DAYS (consolidation.retention.message_purge)."""

from consolidation.retention import message_purge

from ._retention_base import PurgeCommand


class Command(PurgeCommand):
    help = "Physically delete extracted session message(s) past BIZMEMORY_MESSAGE_RETENTION_DAYS."
    purge = staticmethod(message_purge)
    what = "extracted session message(s) past BIZMEMORY_MESSAGE_RETENTION_DAYS"
