"""``python manage.py purge_all [--now ISO]`` — run every retention purge (what the daily job runs)."""

import json

from django.core.management.base import CommandError
from django.utils.dateparse import parse_datetime

from consolidation.retention import retention_purge_all

from ._retention_base import PurgeCommand


class Command(PurgeCommand):
    help = "Run every retention purge (journal archive, pending journal, snapshots, messages, quarantine); prints JSON counts."

    def handle(self, *args, **opts):
        now = parse_datetime(opts["now"]) if opts.get("now") else None
        if opts.get("now") and (now is None or now.tzinfo is None):
            raise CommandError("--now: must be an ISO 8601 date-time with a UTC offset", returncode=2)
        self.stdout.write(json.dumps({"purged": retention_purge_all(now=now)}))
