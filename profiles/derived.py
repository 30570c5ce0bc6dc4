"""Derived state of a user's memory, rebuilt after the write that changed it has committed.

Derived state is what can be rebuilt from the current items at any time: the search index
(item vectors and postings, ``profiles.search.memory_index_refresh``, which embeds — an HTTP
call with a remote embedder) and the context pack (``profiles.selectors.context_pack_build``).
It is never built inside a write transaction (issue 15, "derived state after commit"): the
one write path (:mod:`profiles.changeset`) asks for it with :func:`derived_state_after_commit`,
and Django runs it once the outermost transaction commits (immediately when there is none).
A failure is logged and leaves the committed memory as it is; ``manage.py
rebuild_embeddings`` and the next change rebuild it.
"""

from __future__ import annotations

import functools
import logging

from django.contrib.auth import get_user_model
from django.db import transaction

from .models import ContextPack, MemoryItem
from .search import memory_index_refresh
from .selectors import context_pack_build

log = logging.getLogger("bizmemory.derived")


def derived_state_refresh(*, user_id: int) -> dict[str, bool]:
    """Rebuild ``user_id``'s search index and context pack from the current items (no pack is
    kept for a user without current items: a read answers ``no_memory`` without one).

    Input: the user's primary key. Output: ``{"index": bool, "pack": bool}``, whether each
    step succeeded. Never raises: a step that fails is logged (``bizmemory.derived``) and the
    other still runs. Call it outside any write transaction.
    """
    done = {"index": False, "pack": False}
    try:
        memory_index_refresh(user_id=user_id)
        done["index"] = True
    except Exception:  # noqa: BLE001 — derived state heals on the next change; memory is committed
        log.warning("search index refresh failed for user %s", user_id, exc_info=True)
    try:
        user = get_user_model().objects.filter(pk=user_id).first()
        if user is not None and MemoryItem.objects.filter(user_id=user_id, valid_until__isnull=True).exists():
            context_pack_build(user=user)
        else:  # nothing to pack (e.g. after clear-all): no row is kept about the user
            ContextPack.objects.filter(user_id=user_id).delete()
        done["pack"] = True
    except Exception:  # noqa: BLE001
        log.warning("context pack build failed for user %s", user_id, exc_info=True)
    return done


def after_commit(func) -> None:
    """Run ``func()`` when the current transaction commits (``transaction.on_commit``; at once
    when none is open); nothing runs when it rolls back. The one place derived state is queued
    from, here and in the pipeline (``consolidation.session_index``)."""
    transaction.on_commit(func)


def derived_state_after_commit(*, user_id: int) -> None:
    """Queue :func:`derived_state_refresh` for ``user_id`` with :func:`after_commit`."""
    after_commit(functools.partial(derived_state_refresh, user_id=user_id))
