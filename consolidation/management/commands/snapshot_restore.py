"""``python manage.py snapshot_restore --user USER_ID --version N --actor LOGIN`` — restore a saved version.

The current memory is saved first as a rollback point, whose version is printed
(restore that version to undo). ``--actor`` is the staff login doing it: it must hold
``profiles.restore_snapshot`` (the group "memory officers"; superusers hold it), checked by the
service as on the staff pages (issue 14), and the restore is audited under it. Exit status 2
with a message for an unknown user, version or actor, or an actor without the permission.
"""

from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
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
        parser.add_argument("--actor", required=True,
                            help="login of the staff account restoring (needs profiles.restore_snapshot)")

    def handle(self, *args, **opts):
        actor = get_user_model().objects.filter(username=opts["actor"]).first()
        if actor is None:
            raise CommandError(f"--actor: no account {opts['actor']!r}", returncode=2)
        user = user_by_platform_id(opts["user"])
        try:
            rollback = snapshot_restore(user_id=user.pk, version=opts["snapshot_version"], actor=actor)
        except PermissionDenied as exc:
            raise CommandError(f"--actor: {exc}", returncode=2) from exc
        except SnapshotNotFound as exc:
            raise CommandError(f"--version: {exc}", returncode=2) from exc
        self.stdout.write(
            f"restored version {opts['snapshot_version']}; rollback point is version {rollback.version}"
        )
