"""``python manage.py replay FILE.jsonl`` — feed labeled conversations through the pipeline.

Contract: ../shared/eval/README.md. For each conversation: create the user, the
entry agent and experts, apply ``settings``, ingest each session's messages
through the ingest service with ``started_at`` as the clock (messages one
minute apart); at each session end run extraction for the session, then
consolidation for the user, synchronously with the replayed clock. Exit 0 on
success; exit 2 with a message naming the line and field on malformed input,
and nothing is written for that conversation.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import time

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils import timezone

from consolidation.consolidate import consolidation_run
from consolidation.extraction import extraction_run
from consolidation.ingest import IncomingMessage, IngestError, messages_ingest, session_end
from profiles.services import memory_settings_update, user_ensure


_SLUG = re.compile(r"[-a-zA-Z0-9_]{1,64}")


def _fail(lineno: int, field: str, message: str) -> CommandError:
    return CommandError(f"line {lineno}: {field}: {message}", returncode=2)


def parse_conversation(raw: str, lineno: int) -> dict:
    """Validate one JSONL line of the replay format; returns the dict or raises CommandError(returncode=2)."""
    try:
        conv = json.loads(raw)
    except ValueError as exc:
        raise _fail(lineno, "json", str(exc)) from exc
    if not isinstance(conv, dict):
        raise _fail(lineno, "line", "must be a JSON object")
    for name in ("user_id", "sessions"):
        if name not in conv:
            raise _fail(lineno, name, "is required")
    if not isinstance(conv["user_id"], str) or not conv["user_id"]:
        raise _fail(lineno, "user_id", "must be a non-empty string")
    if conv["user_id"] != conv["user_id"].strip():  # ids are exact, never trimmed (user_ensure)
        raise _fail(lineno, "user_id", "must not start or end with whitespace")
    if not isinstance(conv["sessions"], list):
        raise _fail(lineno, "sessions", "must be a list")
    settings = conv.get("settings") or {}
    if not isinstance(settings, dict):
        raise _fail(lineno, "settings", "must be an object")
    if not isinstance(settings.get("memory_enabled", True), bool):
        raise _fail(lineno, "settings.memory_enabled", "must be true or false")
    for name in ("experts_disabled", "experts_excluded_from_extraction"):
        value = settings.get(name, [])
        if not isinstance(value, list) or not all(isinstance(v, str) and _SLUG.fullmatch(v) for v in value):
            raise _fail(lineno, f"settings.{name}", "must be a list of expert slugs")
    for i, s in enumerate(conv["sessions"]):
        where = f"sessions[{i}]"
        if not isinstance(s, dict):
            raise _fail(lineno, where, "must be an object")
        for name in ("session_id", "started_at", "messages"):
            if name not in s:
                raise _fail(lineno, f"{where}.{name}", "is required")
        try:
            started = dt.datetime.fromisoformat(s["started_at"])
        except (TypeError, ValueError) as exc:
            raise _fail(lineno, f"{where}.started_at", "must be an ISO 8601 date-time") from exc
        if started.tzinfo is None:
            raise _fail(lineno, f"{where}.started_at", "needs a UTC offset")
        if s.get("kind", "chat") not in ("chat", "scheduled"):
            raise _fail(lineno, f"{where}.kind", "must be chat or scheduled")
        if not isinstance(s["messages"], list) or not s["messages"]:
            raise _fail(lineno, f"{where}.messages", "must be a non-empty list")
        for j, m in enumerate(s["messages"]):
            if not isinstance(m, dict) or m.get("role") not in ("user", "assistant", "tool", "system", "developer"):
                raise _fail(lineno, f"{where}.messages[{j}].role", "must be user, assistant, tool, system or developer")
            if not isinstance(m.get("content"), str) or not m["content"].strip():
                raise _fail(lineno, f"{where}.messages[{j}].content", "must be a non-empty string")
            expert = m.get("expert")
            if expert is not None and not (isinstance(expert, str) and _SLUG.fullmatch(expert)):
                raise _fail(lineno, f"{where}.messages[{j}].expert", "must be null or an expert slug")
            if m.get("created_at") is not None:
                try:
                    dt.datetime.fromisoformat(m["created_at"])
                except (TypeError, ValueError) as exc:
                    raise _fail(lineno, f"{where}.messages[{j}].created_at", "must be an ISO 8601 date-time") from exc
    return conv


def shift_to_recent(convs: list[dict], *, today: dt.date) -> int:
    """Move every session's ``started_at`` of the parsed conversations ``convs`` (in place) by
    the same whole number of days, so that the latest session starts the day before ``today``
    (times of day and offsets kept). Returns the shift in days (0 when already there)."""
    latest = max(dt.datetime.fromisoformat(s["started_at"]) for c in convs for s in c["sessions"])
    days = (today - dt.timedelta(days=1) - latest.date()).days
    for c in convs:
        for s in c["sessions"]:
            s["started_at"] = (dt.datetime.fromisoformat(s["started_at"]) + dt.timedelta(days=days)).isoformat()
    return days


class Command(BaseCommand):
    help = "Replay labeled conversations (JSONL) through ingest, extraction and consolidation."

    def add_arguments(self, parser):
        parser.add_argument("file", help="JSONL file, one conversation per line (../shared/eval/README.md)")
        parser.add_argument("--quiet-stats", action="store_true", help="do not print the summary line")
        parser.add_argument(
            "--recent", action="store_true",
            help="shift every session by whole days so that the latest starts yesterday (a demo that does "
            "not age out of its retention windows)",
        )

    def handle(self, *args, **opts):
        try:
            with open(opts["file"], encoding="utf-8") as fh:
                lines = [(n, l) for n, l in enumerate(fh, 1) if l.strip()]
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"file: cannot read {opts['file']} as UTF-8 text: {exc}", returncode=2) from exc
        convs = [(n, parse_conversation(l, n)) for n, l in lines]
        if opts.get("recent") and convs:
            shift_to_recent([c for _, c in convs], today=timezone.now().date())
        started = time.monotonic()
        totals = {"conversations": 0, "messages": 0, "journal": 0, "quarantined": 0}
        for lineno, conv in convs:
            try:
                with transaction.atomic():
                    self.replay_one(conv, totals)
            except IngestError as exc:
                raise _fail(lineno, exc.field, exc.message) from exc
            totals["conversations"] += 1
        if not opts["quiet_stats"]:
            totals["seconds"] = round(time.monotonic() - started, 2)
            self.stdout.write(json.dumps({"replay": totals}))

    def replay_one(self, conv: dict, totals: dict) -> None:
        user = user_ensure(external_id=conv["user_id"])
        settings = conv.get("settings") or {}
        memory_settings_update(
            user=user,
            memory_enabled=settings.get("memory_enabled", True),
            experts_disabled=list(settings.get("experts_disabled", [])),
            experts_excluded_from_extraction=list(settings.get("experts_excluded_from_extraction", [])),
        )
        agent = conv.get("agent_id") or "main"
        for s in conv["sessions"]:
            start = dt.datetime.fromisoformat(s["started_at"])
            msgs = [
                IncomingMessage(
                    role=m["role"], content=m["content"], expert=m.get("expert"), created_at=start + dt.timedelta(minutes=i)
                )
                for i, m in enumerate(s["messages"])
            ]
            clock = msgs[-1].created_at
            session, stored = messages_ingest(
                user_id=conv["user_id"],
                session_id=s["session_id"],
                messages=msgs,
                agent=agent,
                session_kind=s.get("kind", "chat"),
                temporary=bool(s.get("temporary", False)),
                now=start,
                enqueue=False,
            )
            session_end(session=session, now=clock, enqueue=False)
            ext = extraction_run(session_id=session.pk, now=clock, trigger="session_end")
            consolidation_run(user_id=user.pk, now=clock)
            totals["messages"] += len(stored)
            totals["journal"] += ext.journal_written
            totals["quarantined"] += ext.quarantined
