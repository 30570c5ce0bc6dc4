"""Sessions, messages, the extraction journal and memory snapshots."""

from django.conf import settings
from django.db import models


class SessionKind(models.TextChoices):
    CHAT = "chat"
    SCHEDULED = "scheduled"  # unattended: never a source of memory


class Session(models.Model):
    """A conversation between a user and the platform.

    ``external_id`` is the platform's session id, unique per user (issue 14, migration 0011):
    two users may use the same id for two sessions, and every lookup by id names the user, so
    another user's id behaves like an unknown one. It is compared exactly (byte-wise on
    MariaDB/MySQL: migration 0010, check bizmemory.E041). ``watermark`` is the id of the
    last message extraction has processed (0 = none). ``lock_token`` and
    ``locked_until`` implement the per-session extraction lease. A
    ``temporary`` session (private window) neither reads nor writes memory.

    Due work (issue 14): ``extraction_due_at`` is when the session next needs an extraction
    run (NULL = nothing due). Ingest sets it in the transaction that stores the turns; each
    run settles it from what is left after its watermark (NULL, now, or the quiet-period end);
    a throttled run moves it to the end of the window. ``last_user_message_id`` is the id of
    the newest user turn, so the sweep can find the impossible state — a user turn past the
    watermark with nothing due and no lease — in one indexed query.
    """

    external_id = models.CharField(max_length=128)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memory_sessions")
    agent = models.ForeignKey("profiles.Agent", on_delete=models.PROTECT, related_name="sessions")
    kind = models.CharField(max_length=16, choices=SessionKind.choices, default=SessionKind.CHAT)
    temporary = models.BooleanField(default=False)
    started_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)
    watermark = models.BigIntegerField(default=0)
    lock_token = models.CharField(max_length=32, blank=True)
    locked_until = models.DateTimeField(null=True, blank=True)
    last_extracted_at = models.DateTimeField(null=True, blank=True)
    extraction_due_at = models.DateTimeField(null=True, blank=True)
    last_user_message_id = models.BigIntegerField(default=0)

    class Meta:
        indexes = [
            models.Index(fields=["user", "started_at"], name="session_user_started"),
            models.Index(fields=["extraction_due_at"], name="session_extraction_due",
                         condition=models.Q(extraction_due_at__isnull=False)),
            models.Index(fields=["user"], name="session_behind_watermark",
                         condition=models.Q(watermark__lt=models.F("last_user_message_id"))),
        ]
        constraints = [models.UniqueConstraint(fields=["user", "external_id"], name="session_user_external_id_uniq")]

    def __str__(self) -> str:
        return self.external_id


class MessageRole(models.TextChoices):
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"
    # The platform's instructions to the model (system prompts; OpenAI's "developer" turns):
    # stored with the session, but never a memory source, never indexed for search, never
    # quoted into a context and never shown on the user's pages (issue 17).
    SYSTEM = "system"
    DEVELOPER = "developer"


# Roles whose turns are instructions to the model, not conversation (see MessageRole).
INSTRUCTION_ROLES = frozenset({MessageRole.SYSTEM.value, MessageRole.DEVELOPER.value})


class Message(models.Model):
    """One conversation message. ``expert`` names the expert agent that produced an
    assistant/tool message (null = the entry agent). ``external_id`` is the platform's
    optional message id (≤ 128 characters, unique within the session when given; null =
    none), which makes a retried ingest store the message once
    (``consolidation.ingest.messages_ingest``)."""

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="messages")
    role = models.CharField(max_length=16, choices=MessageRole.choices)
    content = models.TextField()
    expert = models.ForeignKey("profiles.Agent", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField()
    # Set by extraction: True = this turn may feed memory and past-conversation search;
    # False = it must not (memory off, temporary/scheduled session, disabled or excluded
    # expert, quarantined PII, tool output, cleared by the user); null = not processed yet.
    memory_source = models.BooleanField(null=True, blank=True)
    # NULLs are distinct in a unique index on SQLite, PostgreSQL and MariaDB, so messages
    # without an id never collide; MariaDB/MySQL compare it byte-wise (migration 0006, check
    # bizmemory.E041).
    external_id = models.CharField(max_length=128, null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["session", "id"], name="message_session_id")]
        constraints = [
            models.UniqueConstraint(fields=["session", "external_id"], name="message_session_external_id_uniq")
        ]


class JournalStatus(models.TextChoices):
    PENDING = "pending"
    ARCHIVED = "archived"  # consolidated; kept for the journal retention, never served


class JournalEntry(models.Model):
    """A clean candidate memory waiting for (or past) consolidation.

    Written only by extraction after the sanitizer passed it; ``tokens`` is the
    tiktoken count of ``text`` used to budget consolidation batches.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="journal_entries")
    session = models.ForeignKey(Session, null=True, blank=True, on_delete=models.SET_NULL, related_name="journal_entries")
    kind = models.CharField(max_length=16)
    key = models.CharField(max_length=64)
    value = models.CharField(max_length=255)
    text = models.TextField(blank=True)
    operation = models.CharField(max_length=16, default="set")  # "set" | "retract"
    source_message_ids = models.JSONField(default=list, blank=True)
    fact_date = models.DateField(null=True, blank=True)
    # What produced the candidate: "rule:<rules version>" or "model:<model version>:<score>".
    stage = models.CharField(max_length=64, blank=True, default="")
    observed_at = models.DateTimeField()
    tokens = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=16, choices=JournalStatus.choices, default=JournalStatus.PENDING)
    created_at = models.DateTimeField()
    consolidated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "journal entries"
        indexes = [models.Index(fields=["user", "status", "id"], name="journal_user_status")]
