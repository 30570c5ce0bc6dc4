"""Small builders shared by tests (data is created inline in each test)."""

import datetime as dt

from consolidation.ingest import IncomingMessage, messages_ingest


def post_turns(user_id, session_id, turns, *, start, agent="main", kind="chat", temporary=False):
    """Ingest ``turns`` — (role, content[, expert]) tuples — one minute apart, without queueing jobs."""
    msgs = [
        IncomingMessage(role=t[0], content=t[1], expert=(t[2] if len(t) > 2 else None), created_at=start + dt.timedelta(minutes=i))
        for i, t in enumerate(turns)
    ]
    return messages_ingest(
        user_id=user_id, session_id=session_id, messages=msgs, agent=agent, session_kind=kind,
        temporary=temporary, now=start, enqueue=False,
    )


def post_and_extract(user_id, session_id, turns, *, start, **kwargs):
    """``post_turns`` then run extraction at session end, so the turns are marked as a memory
    source (or not) exactly as the pipeline would; returns ``(session, messages)``."""
    from consolidation.extraction import extraction_run

    session, stored = post_turns(user_id, session_id, turns, start=start, **kwargs)
    extraction_run(session_id=session.pk, now=start + dt.timedelta(minutes=len(turns)), trigger="session_end")
    return session, stored


def memory_officers_group():
    """The "memory officers" group with its permissions, made by its migration's own function:
    transactional tests flush the database, and with it the group the migration created."""
    import importlib

    from django.apps import apps

    migration = importlib.import_module("profiles.migrations.0013_memory_officers")
    return migration.memory_officers_create(apps, None)


def officer_make(username: str = "reviewer", **fields):
    """A staff account in the "memory officers" group (:func:`memory_officers_group`); password
    ``pw`` unless ``password`` is given."""
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user(username, password=fields.pop("password", "pw"), is_staff=True, **fields)
    user.groups.add(memory_officers_group())
    return user
