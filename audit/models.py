"""Quarantine of blocked originals, the append-only audit log, sensitive words."""

from django.conf import settings
from django.db import models


class QuarantineRecordQuerySet(models.QuerySet):
    def clear_expired(self, now) -> int:
        """Physically delete records whose ``expires_at`` is at or before ``now`` (aware
        datetime); returns how many QuarantineRecord rows were deleted. Like Django's
        ``SessionStore.clear_expired()``: callers decide when, and whether to audit."""
        _, per_model = self.filter(expires_at__lte=now).delete()
        return per_model.get(self.model._meta.label, 0)


class QuarantineRecord(models.Model):
    """A user message the sanitizer blocked from memory.

    ``original_encrypted`` holds the Fernet-encrypted original (never plain
    text); ``hits`` is a list of ``{"type", "start", "end", "score"}`` with
    character offsets into the original; ``preview`` is the masked text.
    Physically deleted after ``BIZMEMORY['QUARANTINE_RETENTION_DAYS']``.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="quarantine_records")
    # The session's pk (``consolidation.Session``): an id, not a foreign key — audit is the leaf
    # app and depends on no other (issue 15).
    session_id = models.BigIntegerField(null=True, blank=True)
    session_external_id = models.CharField(max_length=128, blank=True)  # the platform's session id, as shown
    message_ids = models.JSONField(default=list)
    original_encrypted = models.BinaryField()
    hits = models.JSONField(default=list)
    hit_types = models.CharField(max_length=255, blank=True)
    preview = models.TextField(blank=True)
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField()

    objects = QuarantineRecordQuerySet.as_manager()

    class Meta:
        indexes = [models.Index(fields=["expires_at"], name="quarantine_expires")]
        # The review page's actions beyond the masked preview, each granted on purpose (group
        # "memory officers", migration profiles.0012); being staff is not enough.
        permissions = [
            ("reveal_quarantine", "Can reveal a quarantined original (decrypted PII)"),
            ("delete_quarantine_now", "Can delete a quarantine record before it expires"),
            ("release_quarantine", "Can mark a quarantined message a false positive (re-submits it)"),
        ]


class AuditLog(models.Model):
    """Append-only record of a memory-changing action or a view of a quarantined original.

    ``details`` holds ids, types and counts only — never the memory text or PII.
    """

    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    subject_user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    action = models.CharField(max_length=64)
    target_type = models.CharField(max_length=64, blank=True)
    target_id = models.CharField(max_length=64, blank=True)
    details = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["subject_user", "created_at"], name="audit_subject_time")]


class SensitiveWord(models.Model):
    """An admin-maintained word that blocks any candidate containing it (case-insensitive)."""

    word = models.CharField(max_length=128, unique=True)
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.word
