"""Invalidation of the context pack (``profiles.models.ContextPack``) on row-level writes.

The pack is keyed by the user's memory version, which every service that writes memory bumps
inside its transaction. These receivers cover the rest: any ``save()`` / ``delete()`` of a
memory item or a confirmation request (the admin, a shell, a data migration) drops the user's
pack, so the next ``memory_context`` call rebuilds it. Queryset ``update()`` and ``bulk_create``
send no signals; the services that use them bump the version instead.
"""

from __future__ import annotations

from django.apps import apps
from django.db.models.signals import post_delete, post_save


def context_pack_invalidate(sender, instance, **kwargs) -> None:
    """Receiver: delete the pack of ``instance.user_id`` (no-op when there is none)."""
    from .models import ContextPack

    user_id = getattr(instance, "user_id", None)
    if user_id is not None:
        ContextPack.objects.filter(user_id=user_id).delete()


def connect() -> None:
    """Connect the receivers for ``profiles.MemoryItem`` and, when installed,
    ``consolidation.ConfirmationRequest`` (called from ``ProfilesConfig.ready``)."""
    senders = [apps.get_model("profiles", "MemoryItem")]
    if apps.is_installed("consolidation"):
        senders.append(apps.get_model("consolidation", "ConfirmationRequest"))
    for sender in senders:
        post_save.connect(context_pack_invalidate, sender=sender, dispatch_uid=f"context_pack_save_{sender._meta.label}")
        post_delete.connect(context_pack_invalidate, sender=sender, dispatch_uid=f"context_pack_delete_{sender._meta.label}")
