"""Staff permissions checked where the work is done (issue 14, "Reveal and restore permissions").

Revealing, deleting now and releasing a quarantined message, restoring a memory version and
reading the audit log each need an explicit permission (the group "memory officers" made by
``profiles.0013`` holds them all; superusers hold every permission). The services and selectors
that do that work call :func:`permission_require` first, so every caller is checked alike: the
staff pages (``audit.views``, ``bizmemory.staff_views``, which answer the ``PermissionDenied``
with a 403 through the project's handler), the admin and the ``snapshot_restore`` command
(``--actor``, exit status 2 otherwise).
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _lazy

REVEAL = "audit.reveal_quarantine"
DELETE_NOW = "audit.delete_quarantine_now"
RELEASE = "audit.release_quarantine"
RESTORE = "profiles.restore_snapshot"
VIEW_AUDIT_LOG = "audit.view_auditlog"


def permission_refusal(action):
    """The 403 text for staff without the permission ``action`` (lazy text, e.g. "Reading the audit log") needs."""
    return format_lazy(
        _lazy("{action} needs a permission your account does not have. Ask an administrator to add you to "
              "the “memory officers” group."), action=action,
    )


REFUSALS = {
    REVEAL: permission_refusal(_lazy("Revealing a quarantined original")),
    DELETE_NOW: permission_refusal(_lazy("Deleting a quarantine record")),
    RELEASE: permission_refusal(_lazy("Marking a quarantined message a false positive")),
    RESTORE: permission_refusal(_lazy("Restoring a memory version")),
    VIEW_AUDIT_LOG: permission_refusal(_lazy("Reading the audit log")),
}


def permission_require(*, actor, perm: str) -> None:
    """Return when ``actor`` may do what ``perm`` (one of this module's names, ``"app.codename"``)
    allows: an active staff account holding it (``User.has_perm``: directly, through a group, or
    as a superuser). Otherwise raise ``PermissionDenied`` whose text names the action and who may
    do it (``REFUSALS``); ``actor`` None (nobody named) is refused too. Called first, before any
    lookup, so a refused actor learns nothing about the records named."""
    if actor is None or not actor.is_staff or not actor.has_perm(perm):
        raise PermissionDenied(str(REFUSALS[perm]))
