"""``python manage.py snapshot_restore --user USER_ID --version N`` — restore a saved version.

The current memory is saved first as a rollback point, whose version is printed
(restore that version to undo).
"""

from django.core.management.base import BaseCommand, CommandError

from profiles.versions import SnapshotNotFound
from profiles.services import snapshot_restore

from .snapshot_create import user_by_platform_id


class Command(BaseCommand):
    help = "Replace the user's current memory with snapshot VERSION (after saving a rollback point)."

    def add_base_argument(self, parser, *args, **kwargs):
        if "--version" in args:  # here --version names the snapshot, not Django's version
            return
        super().add_base_argument(parser, *args, **kwargs)

    def add_arguments(self, parser):
        parser.add_argument("--user", required=True, help="platform user id")
        parser.add_argument("--version", dest="snapshot_version", type=int, required=True, help="snapshot version")

    def handle(self, *args, **opts):
        user = user_by_platform_id(opts["user"])
        try:
            rollback = snapshot_restore(user_id=user.pk, version=opts["snapshot_version"])
        except SnapshotNotFound as exc:
            raise CommandError(f"--version: {exc}", returncode=2) from exc
        self.stdout.write(
            f"restored version {opts['snapshot_version']}; rollback point is version {rollback.version}"
        )
