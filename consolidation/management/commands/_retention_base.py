"""Shared body of the ``purge_*`` commands: call one purge from consolidation.retention."""

from django.core.management.base import BaseCommand, CommandError
from django.utils.dateparse import parse_datetime


class PurgeCommand(BaseCommand):
    """Subclasses set ``purge`` (a ``consolidation.retention`` function) and ``what``."""

    purge = None
    what = ""

    def add_arguments(self, parser):
        parser.add_argument("--now", help="ISO 8601 date-time with offset to purge as of (default: now)")

    def handle(self, *args, **opts):
        now = None
        if opts.get("now"):
            now = parse_datetime(opts["now"])
            if now is None or now.tzinfo is None:
                raise CommandError("--now: must be an ISO 8601 date-time with a UTC offset", returncode=2)
        count = type(self).purge(now=now)
        self.stdout.write(f"purged {count} {self.what}")
        return None
