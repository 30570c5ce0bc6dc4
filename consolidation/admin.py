from django.contrib import admin, messages
from django.utils.translation import gettext_lazy as _

from audit.services import sensitive_words_active
from bizmemory.admin_base import ReadOnlyAdmin, ServiceOwnedAdmin
from profiles.models import ConsolidationProposal
from profiles.selectors import outbound_mask

from .consolidate import ProposalError, proposal_approve, proposal_reject
from .models import INSTRUCTION_ROLES, JournalEntry, Message, Session


@admin.register(Session)
class SessionAdmin(ReadOnlyAdmin):
    list_display = ("external_id", "user", "agent", "kind", "temporary", "started_at", "ended_at", "watermark")
    list_filter = ("kind", "temporary")
    list_select_related = ("user", "agent")


@admin.register(Message)
class MessageAdmin(ReadOnlyAdmin):
    """Session messages, read-only and masked: the raw text may hold PII that the sanitizer kept
    out of memory, and an original is only ever shown through the audited quarantine reveal
    (``/review/``). Staff see what the outbound sanitizer leaves of it; the content of the
    platform's system / developer prompts is not shown at all (stored for the record only)."""

    list_display = ("id", "session", "role", "expert", "created_at")
    list_filter = ("role",)
    list_select_related = ("session", "expert")
    raw_id_fields = ("session",)
    exclude = ("content",)
    readonly_fields = ("content_masked",)

    @admin.display(description="content (PII and sensitive words masked)")
    def content_masked(self, obj) -> str:
        """``obj.content`` with the sanitizer's hits masked (``profiles.selectors.outbound_mask``);
        a placeholder for system / developer turns (``INSTRUCTION_ROLES``)."""
        if obj.role in INSTRUCTION_ROLES:
            return f"({obj.role} prompt: not shown)"
        return outbound_mask(obj.content, words=sensitive_words_active())


@admin.register(JournalEntry)
class JournalEntryAdmin(ReadOnlyAdmin):
    list_display = ("id", "user", "kind", "key", "status", "tokens", "created_at")
    list_filter = ("status", "kind")
    list_select_related = ("user",)
    raw_id_fields = ("user", "session")


@admin.register(ConsolidationProposal)
class ConsolidationProposalAdmin(ServiceOwnedAdmin):
    """Held consolidations (loss guard). Resolved only through the approve / reject actions,
    which call ``proposal_approve`` / ``proposal_reject`` (audited, with the admin as actor)."""

    list_display = ("id", "user", "status", "removed", "items_at_start", "created_at", "resolved_at", "resolved_by")
    list_filter = ("status",)
    list_select_related = ("user", "resolved_by")
    raw_id_fields = ("user", "resolved_by")
    search_fields = ("user__username",)
    date_hierarchy = "created_at"
    actions = ("approve", "reject")

    def _resolve(self, request, queryset, service, verb):
        done = 0
        for pk in list(queryset.values_list("pk", flat=True)):
            try:
                service(proposal_id=pk, actor=request.user)
                done += 1
            except ProposalError as exc:
                self.message_user(request, f"#{pk}: {exc}", messages.WARNING)
        if done:
            self.message_user(request, _("%(n)d proposal(s) %(verb)s.") % {"n": done, "verb": verb}, messages.SUCCESS)

    @admin.action(description=_("Approve selected proposals (apply the held consolidation)"))
    def approve(self, request, queryset):
        self._resolve(request, queryset, proposal_approve, _("approved"))

    @admin.action(description=_("Reject selected proposals (keep the items)"))
    def reject(self, request, queryset):
        self._resolve(request, queryset, proposal_reject, _("rejected"))
