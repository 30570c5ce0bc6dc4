"""Staff pages (server-rendered): memory versions per user, the audit log, the pipeline dashboard,
settings guardrails. Composition (issue 15): the staff area draws on all three apps, so it lives
in the top layer.

Mounted at /staff/ by bizmemory/urls.py (namespace ``staff``). Anonymous visitors are sent
to the login page; signed-in non-staff users get 403 (``audit.views.staff_required``). Restoring
a version needs ``profiles.restore_snapshot`` and the audit log ``audit.view_auditlog`` (the
group "memory officers"), checked by the services (``audit.permissions``): other staff get 403 saying so.
Actions are POST only (CSRF-protected); the logic lives in ``profiles.versions``.
The quarantine review is at /review/ (``audit.views``); the raw tables are in /admin/.
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.paginator import Paginator
from django.db.models import Count, Q
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_POST

from audit.models import AuditLog
from audit.selectors import audit_log_list
from audit.views import staff_required
from consolidation.dashboard import dashboard_figures
from profiles.models import MemoryItem, SnapshotReason
from profiles.services import snapshot_restore
from profiles.views import versions_and_diff
from profiles.versions import SnapshotNotFound, snapshot_create

from .conf_docs import guardrails

PAGE_SIZE = 50


class AuditFilterForm(forms.Form):
    """GET filters of the audit log: action (prefix), subject user, actor, inclusive dates."""

    action = forms.CharField(required=False, max_length=64, label=gettext_lazy("Action"))
    user = forms.CharField(required=False, max_length=150, label=gettext_lazy("User"))
    actor = forms.CharField(required=False, max_length=150, label=gettext_lazy("Actor"))
    date_from = forms.DateField(required=False, label=gettext_lazy("From"), widget=forms.DateInput(attrs={"type": "date"}))
    date_to = forms.DateField(required=False, label=gettext_lazy("To"), widget=forms.DateInput(attrs={"type": "date"}))


@require_GET
@staff_required
def staff_home(request):
    """GET /staff/ — links to the staff pages and the settings guardrails in force (every setting
    with a limit or a start-up check, from the schema: ``bizmemory.conf_docs.guardrails``)."""
    return render(request, "consolidation/staff_home.html", {"guardrails": guardrails()})


@require_GET
@staff_required
def versions_users(request):
    """GET /staff/versions/?q= — users with their number of versions and current items."""
    q = request.GET.get("q", "").strip()
    users = get_user_model().objects.annotate(
        versions=Count("memory_snapshots", distinct=True),
        items=Count("memory_items", filter=Q(memory_items__valid_until__isnull=True), distinct=True),
    ).order_by("username")
    if q:
        users = users.filter(Q(username__icontains=q) | Q(platform_identity__external_id__icontains=q))
    page = Paginator(users, PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "consolidation/versions_users.html", {"page": page, "q": q})


@require_GET
@staff_required
def versions_user(request, user_id: int):
    """GET /staff/versions/<user id>/?old=&new= — the user's versions, a diff of two, restore
    and manual-snapshot buttons. Unknown versions → 404."""
    subject = get_object_or_404(get_user_model(), pk=user_id)
    versions, form, diff, status = versions_and_diff(request, user=subject)
    current = MemoryItem.objects.current().filter(user=subject).count()
    return render(
        request, "consolidation/versions_user.html",
        {"subject": subject, "versions": versions, "form": form, "diff": diff, "current_items": current}, status=status,
    )


@require_POST
@staff_required
def version_restore(request, user_id: int, version: int):
    """POST /staff/versions/<user id>/<version>/restore — restore that version; the current
    state is saved first as a rollback point (``snapshot_restore``, which refuses staff without
    ``profiles.restore_snapshot``: 403)."""
    try:
        # An unknown user has no snapshots: SnapshotNotFound, 404 (after the permission check).
        rollback = snapshot_restore(user_id=user_id, version=version, actor=request.user)
    except SnapshotNotFound as exc:
        raise Http404(str(exc)) from exc
    messages.success(
        request,
        _("Version %(version)s restored. The state before it is saved as version %(rollback)s.")
        % {"version": version, "rollback": rollback.version},
    )
    return redirect("staff:versions-user", user_id=user_id)


@require_POST
@staff_required
def snapshot_manual(request, user_id: int):
    """POST /staff/versions/<user id>/snapshot — save the current memory as a manual version (audited)."""
    subject = get_object_or_404(get_user_model(), pk=user_id)
    snap = snapshot_create(user_id=subject.pk, reason=SnapshotReason.MANUAL, actor=request.user)
    messages.success(request, _("Saved the current memory as version %(version)s.") % {"version": snap.version})
    return redirect("staff:versions-user", user_id=subject.pk)


@require_GET
@staff_required
def audit_log(request):
    """GET /staff/audit/?action=&user=&actor=&date_from=&date_to=&page= — the audit log,
    newest first, 50 a page, read-only (``audit_log_list``, which refuses staff without
    ``audit.view_auditlog``: 403). Invalid filters → the page with errors, status 400."""
    form = AuditFilterForm(request.GET or None)
    filters = {}
    status = 200
    if form.is_bound:
        if form.is_valid():
            d = form.cleaned_data
            filters = {"action": d["action"].strip(), "actor_username": d["actor"].strip(),
                       "date_from": d["date_from"], "date_to": d["date_to"]}
            if d["user"]:
                platform = get_user_model().objects.filter(platform_identity__external_id=d["user"].strip())
                filters["subject_user_ids"] = platform.values("pk")
        else:
            status = 400
    qs = audit_log_list(actor=request.user, **filters)
    page = Paginator(qs, PAGE_SIZE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    actions = AuditLog.objects.order_by("action").values_list("action", flat=True).distinct()
    return render(
        request, "consolidation/audit_log.html",
        {"form": form, "page": page, "query": query.urlencode(), "actions": list(actions)}, status=status,
    )


@require_GET
@staff_required
def dashboard(request):
    """GET /staff/dashboard/ — memories per user, journal backlog, quarantine per hit type and
    job failures, as inline SVG bars with the numbers in tables (``dashboard_figures``)."""
    return render(request, "consolidation/dashboard.html", {"fig": dashboard_figures()})


app_name = "staff"

urlpatterns = [
    path("", staff_home, name="home"),
    path("versions/", versions_users, name="versions"),
    path("versions/<int:user_id>/", versions_user, name="versions-user"),
    path("versions/<int:user_id>/<int:version>/restore", version_restore, name="version-restore"),
    path("versions/<int:user_id>/snapshot", snapshot_manual, name="snapshot-manual"),
    path("audit/", audit_log, name="audit-log"),
    path("dashboard/", dashboard, name="dashboard"),
]
