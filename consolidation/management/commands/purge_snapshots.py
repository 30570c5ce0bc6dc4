"""``python manage.py purge_snapshots [--now ISO]`` — delete snapshot(s) beyond BIZMEMORY_SNAPSHOTS_KEEP per user (consolidation.retention.snapshot_purge)."""

from consolidation.retention import snapshot_purge

from ._retention_base import PurgeCommand


class Command(PurgeCommand):
    help = "Physically delete snapshot(s) beyond BIZMEMORY_SNAPSHOTS_KEEP per user."
    purge = staticmethod(snapshot_purge)
    what = "snapshot(s) beyond BIZMEMORY_SNAPSHOTS_KEEP per user"
