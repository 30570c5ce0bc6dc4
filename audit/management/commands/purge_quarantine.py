"""``python manage.py purge_quarantine`` — delete quarantine records past their retention."""

from django.core.management.base import BaseCommand

from audit.retention import quarantine_purge


class Command(BaseCommand):
    help = "Physically delete quarantine records whose retention (BIZMEMORY_QUARANTINE_RETENTION_DAYS) has passed."

    def handle(self, *args, **options):
        self.stdout.write(f"purged {quarantine_purge()} quarantine record(s)")
