"""``python manage.py export_memory --format json [--user USER_ID]`` — everything long-term.

Prints one JSON object ``{"users": {user_id: {...}}}`` in the shape
../shared/eval/README.md defines: current ``items``, the rendered ``memory_md``,
the pending ``journal`` (archived entries are consolidated history, not
pending work), every retained ``snapshot``, the ``search_index`` chunks and the
``quarantine_count``. ``--format md`` prints each user's MEMORY.md instead.
"""

import json

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from profiles.selectors import user_export


class Command(BaseCommand):
    help = "Print users' long-term memory (JSON for ../shared/eval/score.py, or Markdown)."

    def add_arguments(self, parser):
        parser.add_argument("--format", choices=["json", "md"], default="json")
        parser.add_argument("--user", help="platform user id (default: every user)")

    def handle(self, *args, **opts):
        # Platform users only, keyed by platform id (PlatformIdentity): staff logins keep no memory.
        users = get_user_model().objects.filter(platform_identity__isnull=False).select_related("platform_identity")
        users = users.order_by("platform_identity__external_id")
        if opts["user"]:
            users = users.filter(platform_identity__external_id=opts["user"])
            if not users.exists():
                raise CommandError(f"--user: no user {opts['user']!r}", returncode=2)
        data = {u.platform_identity.external_id: user_export(user=u) for u in users}
        if opts["format"] == "json":
            self.stdout.write(json.dumps({"users": data}, ensure_ascii=False, indent=1))
        else:
            for name, d in data.items():
                self.stdout.write(f"<!-- user: {name} -->\n{d['memory_md']}")
