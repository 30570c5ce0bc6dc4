"""Memory items, per-user memory settings, agents and API keys."""

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from django.db.models import Q
from rest_framework_api_key.models import AbstractAPIKey


class Agent(models.Model):
    """An agent of the platform: the entry agent or an expert agent it hands turns to.

    ``slug`` is the platform's own identifier (e.g. ``main``, ``finance``).
    """

    slug = models.SlugField(max_length=64, unique=True)
    name = models.CharField(max_length=128, blank=True)
    is_entry = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.slug


class ExtractionPolicy(models.TextChoices):
    ALWAYS = "always"
    THROTTLED = "throttled"
    NEVER = "never"


class PlatformIdentity(models.Model):
    """A platform end user: the platform's user id and the account that holds its memory.

    Platform user ids are their own namespace, apart from staff logins (issue 14): a platform id
    names the account linked here, never an account that merely has that ``username``. So a
    platform id equal to a staff login is simply another user, with its own account (made with a
    generated username when the plain one is taken): an ingest key learns nothing about which
    staff accounts exist, and no memory is ever filed under one. ``external_id`` is byte-exact
    on every database (migration ``profiles.0016``, check bizmemory.E040).
    """

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="platform_identity")
    external_id = models.CharField(max_length=150, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "platform identities"

    def __str__(self) -> str:
        return self.external_id


class MemorySettings(models.Model):
    """One user's memory switches.

    ``memory_enabled`` False means: nothing is injected and nothing is extracted.
    ``extraction_policy`` empty means the deployment default
    (``BIZMEMORY['EXTRACTION_POLICY']``).

    Due work (issue 14): ``consolidation_due_at`` is when the user's journal next needs a
    consolidation run (NULL = nothing due; set in the transaction that appends to the journal),
    and ``consolidation_lock_token`` / ``consolidation_locked_until`` are the lease a run takes
    with a conditional UPDATE. The periodic sweep (``consolidation.sweep``) claims due rows.
    """

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memory_settings")
    memory_enabled = models.BooleanField(default=True)
    extraction_policy = models.CharField(max_length=16, choices=ExtractionPolicy.choices, blank=True)
    last_extraction_at = models.DateTimeField(null=True, blank=True)
    last_consolidation_at = models.DateTimeField(null=True, blank=True)
    consolidation_due_at = models.DateTimeField(null=True, blank=True)
    consolidation_lock_token = models.CharField(max_length=32, blank=True)
    consolidation_locked_until = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "memory settings"
        indexes = [
            models.Index(fields=["consolidation_due_at"], name="settings_consolidation_due",
                         condition=models.Q(consolidation_due_at__isnull=False)),
        ]


class ExpertSetting(models.Model):
    """A user's switch for one expert agent.

    ``memory_enabled`` False: the expert gets no memory and its turns write none.
    ``excluded_from_extraction`` True: user turns answered by this expert are not
    a source of memory (the source filter), though the expert may still read memory.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="expert_settings")
    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="+")
    memory_enabled = models.BooleanField(default=True)
    excluded_from_extraction = models.BooleanField(default=False)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "agent"], name="expert_setting_user_agent_uniq")]


class MemoryKind(models.TextChoices):
    PROFILE = "profile"
    PREFERENCE = "preference"
    FACT = "fact"


class MemoryItemQuerySet(models.QuerySet):
    def current(self):
        """Items served now: not superseded (``valid_until`` is null)."""
        return self.filter(valid_until__isnull=True)


class MemoryItem(models.Model):
    """One remembered thing about a user.

    ``key`` names the attribute (``city``, ``role``, ``answer_style``, ``family``…);
    for profile keys one current value exists at a time. ``text`` is the
    user's own clause the value came from. ``valid_from``/``valid_until`` bound
    when the item was current (``valid_until`` null = current); ``fact_date``
    is the date a fact refers to, resolved from the message time.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memory_items")
    kind = models.CharField(max_length=16, choices=MemoryKind.choices)
    key = models.CharField(max_length=64)
    value = models.CharField(max_length=255)
    text = models.TextField(blank=True)
    source_message_ids = models.JSONField(default=list, blank=True)
    # The session the value was learned in (``consolidation.Session`` pk). An id, not a foreign
    # key: the memory store does not depend on the pipeline (issue 15); a deleted session leaves
    # a dangling id that readers treat as "no session".
    source_session_id = models.BigIntegerField(null=True, blank=True, db_index=True)
    fact_date = models.DateField(null=True, blank=True)
    valid_from = models.DateTimeField()
    valid_until = models.DateTimeField(null=True, blank=True)
    confirmed_at = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True)

    objects = MemoryItemQuerySet.as_manager()

    class Meta:
        indexes = [
            models.Index(fields=["user", "kind", "key"], name="memitem_user_kind_key"),
            models.Index(fields=["user", "valid_until"], name="memitem_user_current"),
        ]

    def __str__(self) -> str:
        return f"{self.kind}:{self.key}={self.value}"

    def as_dict(self) -> dict:
        """JSON-ready view used by snapshots and exports."""
        return {
            "id": self.pk,
            "kind": self.kind,
            "key": self.key,
            "value": self.value,
            "text": self.text,
            "fact_date": self.fact_date.isoformat() if self.fact_date else None,
            "valid_from": self.valid_from.isoformat(),
            "source_message_ids": list(self.source_message_ids or []),
        }


class MemoryDocument(models.Model):
    """The rendered one-page MEMORY.md of a user, as agents receive it."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memory_document")
    markdown = models.TextField(blank=True)
    tokens = models.PositiveIntegerField(default=0)
    version = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)


class UnescapedJSONEncoder(DjangoJSONEncoder):
    """``DjangoJSONEncoder`` writing non-ASCII text as is (``ensure_ascii=False``): Chinese text
    is stored half the size, and decoded faster, than as ``\\uXXXX`` escapes."""

    def __init__(self, *args, **kwargs):
        kwargs["ensure_ascii"] = False
        super().__init__(*args, **kwargs)


class ContextPack(models.Model):
    """A user's memory lines, pre-sanitized and pre-counted, for the context hot path.

    A cache, never the source of truth: ``profiles.selectors.memory_context`` rebuilds it when
    ``memory_version`` differs from the user's ``consolidation.MemoryVersion`` (every writer of
    memory items or confirmations bumps it). Lines are stored unmasked: the outbound sanitizer
    still runs on every line served, with the sensitive words in force at read time. ``sections`` maps ``profile`` / ``preference`` / ``fact`` / ``pending`` to
    ``{"lines": str (newline-joined), "ids": [item id or null], "tokens": [int]}`` in serving
    order (facts newest first), stored without ASCII escapes (decoded on every request); ``lang`` is the
    language detected from the items (``zh``/``en``, empty without items), and ``sections["lang_sample"]``
    up to 20 item texts, to detect the language together with a session's turns.
    """

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True,
                                related_name="context_pack")
    memory_version = models.BigIntegerField()
    lang = models.CharField(max_length=8)
    sections = models.JSONField(default=dict, encoder=UnescapedJSONEncoder)
    built_at = models.DateTimeField(auto_now=True)


class APIKeyScope(models.TextChoices):
    INGEST = "ingest", "ingest: the platform posts messages and ends sessions"
    READ = "read", "read: agents read memory"


class PlatformAPIKey(AbstractAPIKey):
    """A hashed API key (djangorestframework-api-key) with one scope.

    An ``ingest`` key can only write conversations; a ``read`` key can only read
    memory. Send it as ``X-Api-Key: <prefix>.<secret>``.
    """

    scope = models.CharField(max_length=16, choices=APIKeyScope.choices)
    # Agent slugs this key may act for; empty = every agent (issue #6: "a key may be limited to some agents").
    agents = models.JSONField(
        default=list, blank=True, help_text='JSON list of agent slugs this key may read for, e.g. ["main", "finance"]; empty = all.'
    )

    def allows_agent(self, slug: str) -> bool:
        """True when this key may act for agent ``slug`` (an empty ``agents`` list allows every agent)."""
        return not self.agents or slug in self.agents

    class Meta(AbstractAPIKey.Meta):
        # "Platform": these are the keys the platform and its agents use; the library's own
        # APIKey model (no scope, refused everywhere) is unregistered from the admin.
        verbose_name = "platform API key"
        verbose_name_plural = "platform API keys"
        constraints = [models.CheckConstraint(condition=Q(scope__in=["ingest", "read"]), name="apikey_scope_valid")]


class VectorSource(models.TextChoices):
    ITEM = "item"  # a current MemoryItem (scope=memory)
    MESSAGE = "message"  # a past conversation message (scope=sessions)


class MemoryVector(models.Model):
    """One search chunk of a user's memory and its embedding.

    Exactly one of ``item``/``message_id`` is set (``source`` says which); deleting
    the item deletes the vector (the pipeline deletes message chunks with their messages), and ``profiles.search.memory_index_refresh`` drops
    vectors of superseded items. ``text`` is the chunk as embedded; ``date`` is the
    time it refers to (fact date, item ``valid_from`` or message time), used for
    time decay. ``embedding`` is ``dim`` little-endian float32 values (L2-normalised)
    from the embedder named ``model``. On PostgreSQL the same vector is also kept in
    the pgvector column ``embedding_pg`` (added by migration 0004 only there) with
    HNSW cosine indexes; other databases compute similarity in Python over the
    user's own rows.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    source = models.CharField(max_length=16, choices=VectorSource.choices)
    item = models.OneToOneField(MemoryItem, null=True, blank=True, on_delete=models.CASCADE, related_name="vector")
    # The message of a ``message`` chunk (``consolidation.Message`` pk): an id, not a foreign key
    # (issue 15). Whoever deletes messages deletes their chunks (``consolidation.session_index``).
    message_id = models.BigIntegerField(null=True, blank=True, unique=True)
    kind = models.CharField(max_length=16)  # profile / preference / fact / message
    text = models.TextField()
    date = models.DateTimeField()
    model = models.CharField(max_length=128)
    dim = models.PositiveIntegerField()
    embedding = models.BinaryField()
    # Number of lexical terms of ``text`` (``profiles.search.lexical_terms``): the BM25 document
    # length. NULL = no postings written yet (rows from before migration 0007); search builds them.
    terms_count = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [
            models.Index(fields=["user", "source", "id"], name="memvec_user_source"),
            models.Index(fields=["user", "source", "terms_count"], name="memvec_user_source_terms"),
        ]
        constraints = [
            models.CheckConstraint(
                # ``item``/``message`` may be NULL only on the way out: without deferrable constraints
                # (MySQL/MariaDB) Django's cascade nulls a nullable FK before it deletes the row, which
                # it must do for a vector since its LexicalPosting rows cascade in turn.
                condition=(Q(source="item", message_id__isnull=True) | Q(source="message", item__isnull=True)),
                name="memvec_one_source",
            )
        ]

    def __str__(self) -> str:
        return f"{self.source}:{self.item_id or self.message_id} ({self.model}/{self.dim})"


class LexicalPosting(models.Model):
    """One entry of the BM25 inverted index: term ``term`` occurs ``tf`` times in chunk ``vector``.

    Written with the vector (``profiles.search``) and deleted with it (cascade), so a
    user's terms — fragments of their text — never outlive the chunk. ``user`` and
    ``source`` are copies of the vector's, so a query reads only the postings of one user's
    chunks of one source for the query terms (index ``user, source, term``). ``term`` is a
    ``lexical_terms`` term cut to 64 characters; ``tf`` is capped at 32,767.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    vector = models.ForeignKey(MemoryVector, on_delete=models.CASCADE, related_name="postings")
    source = models.CharField(max_length=16, choices=VectorSource.choices)
    term = models.CharField(max_length=64)
    tf = models.PositiveSmallIntegerField()

    class Meta:
        indexes = [models.Index(fields=["user", "source", "term"], name="lexpost_user_source_term")]

    def __str__(self) -> str:
        return f"{self.term} ×{self.tf} in vector {self.vector_id}"


# --------------------------------------------------------------------------- versions, confirmations, proposals


class SnapshotReason(models.TextChoices):
    CONSOLIDATION = "consolidation"
    MANUAL = "manual"
    ROLLBACK_POINT = "rollback_point"
    RESTORE = "restore"
    CONFIRMATION = "confirmation"  # the user rejected a contradiction: the old value is current again
    PROPOSAL = "proposal"  # an admin approved a held consolidation
    USER_EDIT = "user_edit"  # the user deleted an entry from their memory page
    STAFF_EDIT = "staff_edit"  # a staff member deleted an entry in the Django admin


class Snapshot(models.Model):
    """A version of one user's memory: the current items and the rendered document."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memory_snapshots")
    version = models.PositiveIntegerField()
    reason = models.CharField(max_length=32, choices=SnapshotReason.choices)
    items = models.JSONField(default=list)
    memory_md = models.TextField(blank=True)
    created_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "version"], name="snapshot_user_version_uniq")]
        ordering = ["user_id", "-version"]
        permissions = [("restore_snapshot", "Can restore a memory version")]


class MemoryVersion(models.Model):
    """Per-user memory version number: the compare-and-set token of every memory write.

    Consolidation reads ``version`` before planning and applies its plan only if
    ``UPDATE … SET version = version + 1 WHERE user = u AND version = read`` hits
    one row (``profiles.versions.memory_version_bump`` for other writers);
    a lost race re-plans or defers. No row yet = version 0.
    """

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memory_version")
    version = models.PositiveBigIntegerField(default=0)
    updated_at = models.DateTimeField(null=True, blank=True)


class ConfirmationStatus(models.TextChoices):
    PENDING = "pending"
    CONFIRMED = "confirmed"
    REJECTED = "rejected"  # the old value was restored as current
    DISMISSED = "dismissed"  # superseded by a later change or a restore


class ConfirmationRequest(models.Model):
    """A contradiction that matters (city, role, company, department) waiting for the user.

    Consolidation made ``new_item`` current and closed ``old_item``; until the user
    confirms or rejects, agents and the memory page surface "earlier X, now Y — confirm?"
    (``profiles.confirmations.pending_confirmations``).
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memory_confirmations")
    key = models.CharField(max_length=64)
    old_item = models.ForeignKey(MemoryItem, on_delete=models.CASCADE, related_name="+")
    new_item = models.ForeignKey(MemoryItem, on_delete=models.CASCADE, related_name="+")
    status = models.CharField(max_length=16, choices=ConfirmationStatus.choices, default=ConfirmationStatus.PENDING)
    created_at = models.DateTimeField()
    resolved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["user", "status"], name="confirm_user_status")]


class ProposalStatus(models.TextChoices):
    PENDING = "pending"
    APPROVED = "approved"
    REJECTED = "rejected"


class ConsolidationProposal(models.Model):
    """A consolidation the loss guard held back: it would have removed too much.

    ``journal_entry_ids`` are the entries the run would have consumed (they stay
    pending; the user's consolidations wait while a proposal is pending);
    ``removals`` is ``[{"item_id": int, "reason": str}]`` — ids and reason codes
    only, never memory text. ``items_at_start`` / ``removed`` are the counts the
    guard compared with ``BIZMEMORY['CONSOLIDATION_MAX_LOSS_SHARE']``.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memory_proposals")
    status = models.CharField(max_length=16, choices=ProposalStatus.choices, default=ProposalStatus.PENDING)
    journal_entry_ids = models.JSONField(default=list)
    removals = models.JSONField(default=list)
    items_at_start = models.PositiveIntegerField(default=0)
    removed = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField()
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        indexes = [models.Index(fields=["user", "status"], name="proposal_user_status")]
