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


def staff_with(username: str, *perms: str, is_staff: bool = True):
    """An account (staff unless ``is_staff`` is False; password ``pw``) holding exactly ``perms``
    (``"app_label.codename"``), re-read so that no permission cache hides a change."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Permission

    user = get_user_model().objects.create_user(username, password="pw", is_staff=is_staff)
    for perm in perms:
        label, codename = perm.split(".")
        user.user_permissions.add(Permission.objects.get(content_type__app_label=label, codename=codename))
    return get_user_model().objects.get(pk=user.pk)


PHONE = "13912345678"


def phone_quarantined(user, at):
    """A quarantine record of ``user`` filed at ``at`` for a sentence holding :data:`PHONE`."""
    from audit.sanitizer import analyze
    from audit.services import quarantine_file, sensitive_words_active

    text = f"我的手机是{PHONE}"
    return quarantine_file(user=user, session_id=None, message_ids=[], original=text,
                           hits=analyze(text, sensitive_words=sensitive_words_active()), now=at)


def two_versions(user, t0) -> list[int]:
    """Two consolidation runs a day apart (city, then industry); the user's snapshot versions, oldest first."""
    from consolidation.consolidate import consolidation_run
    from consolidation.models import JournalEntry
    from profiles.models import Snapshot

    for day, (key, value) in enumerate([("city", "北京"), ("industry", "金融")]):
        JournalEntry.objects.create(user=user, kind="profile", key=key, value=value, text=f"{key}: {value}",
                                    observed_at=t0, created_at=t0, tokens=5)
        consolidation_run(user_id=user.pk, now=t0 + dt.timedelta(days=day))
    return sorted(Snapshot.objects.filter(user=user).values_list("version", flat=True))
