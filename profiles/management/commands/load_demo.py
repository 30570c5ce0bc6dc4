"""``python manage.py load_demo`` — the quick start's demo: conversations, accounts, API keys.

Replays ``demo/conversations.jsonl`` (written for this project, zh and en) once,
gives the demo users a password, creates an ``admin`` superuser and one API key
per scope, and prints how to use them. Idempotent; keys are shown again from
``var/demo-keys.json`` (they are stored hashed in the database).
"""

import json
import os
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand

from profiles.models import PlatformAPIKey

DEMO_FILE = Path(settings.BASE_DIR) / "demo" / "conversations.jsonl"
DEMO_PASSWORD = "demo-password"


class Command(BaseCommand):
    help = "Load the demo conversations, accounts and API keys (idempotent)."

    def handle(self, *args, **opts):
        User = get_user_model()
        if not User.objects.filter(username="demo-li").exists():
            call_command("replay", str(DEMO_FILE), "--recent", stdout=self.stdout)
        for user in User.objects.filter(username__startswith="demo-"):
            user.set_password(DEMO_PASSWORD)
            user.save(update_fields=["password"])
        admin = User.objects.filter(username="admin").first() or User.objects.create_superuser("admin", "", DEMO_PASSWORD)
        keys = self._keys()
        self.stdout.write(
            "\nDemo accounts (password: %s): admin (staff), demo-li, demo-sam, demo-off\n" % DEMO_PASSWORD
            + f"API keys (header X-Api-Key): ingest={keys['ingest']}  read={keys['read']}\n"
            + f"Try: curl -H 'X-Api-Key: {keys['read']}' "
            + f"'http://127.0.0.1:{os.environ.get('PORT', '8000')}/api/v1/context?user=demo-li&agent=main'\n"
        )
        assert admin.is_staff

    def _keys(self) -> dict:
        path = Path(settings.VAR_DIR) / "demo-keys.json"
        if path.exists():
            keys = json.loads(path.read_text())
            if all(PlatformAPIKey.objects.filter(prefix=k.split(".")[0]).exists() for k in keys.values()):
                return keys
        keys = {}
        for scope in ("ingest", "read"):
            _, keys[scope] = PlatformAPIKey.objects.create_key(name=f"demo-{scope}", scope=scope)
        path.write_text(json.dumps(keys))
        path.chmod(0o600)
        return keys
