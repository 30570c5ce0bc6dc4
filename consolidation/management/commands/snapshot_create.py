"""``python manage.py snapshot_create --user USER_ID`` — save a manual version of a user's memory."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from profiles.models import SnapshotReason
from profiles.versions import snapshot_create


def user_by_platform_id(platform_id: str):
    """The account of the platform user ``platform_id`` (``PlatformIdentity``: never a staff login of
    the same name); CommandError(returncode=2) when missing."""
    user = get_user_model().objects.filter(platform_identity__external_id=platform_id).first()
    if user is None:
        raise CommandError(f"--user: no user {platform_id!r}", returncode=2)
    return user


class Command(BaseCommand):
    help = "Save the user's current memory items and MEMORY.md as a manual snapshot; prints the version."

    def add_arguments(self, parser):
        parser.add_argument("--user", required=True, help="platform user id")

    def handle(self, *args, **opts):
        user = user_by_platform_id(opts["user"])
        snap = snapshot_create(user_id=user.pk, reason=SnapshotReason.MANUAL)
        self.stdout.write(f"snapshot version {snap.version} ({len(snap.items)} items)")
