from pathlib import Path

from cryptography.fernet import Fernet
from django.conf import settings
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Write a new Fernet key to BIZMEMORY_QUARANTINE_KEY_FILE unless one exists."
    requires_system_checks = []  # it fixes what check bizmemory.E010 reports

    def handle(self, *args, **options):
        path = Path(settings.QUARANTINE_KEY_FILE)
        if path.exists():
            self.stdout.write(f"quarantine key exists: {path}")
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(Fernet.generate_key())
        path.chmod(0o600)
        self.stdout.write(f"wrote quarantine key: {path}")
