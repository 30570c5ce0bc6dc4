"""End-user pages (server-rendered). Users see and change only their own memory.

Anonymous visitors are sent to the login page. Actions are POST only (CSRF-protected);
an id that is not the signed-in user's gives 404. The logic lives in
``profiles.services`` / ``consolidation.consolidate`` (writes) and
``profiles.page_selectors`` (reads).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from . import page_selectors, services
from profiles.services import ConfirmationError, confirmation_confirm, confirmation_reject
from .forms import ClearAllForm, DiffForm, SwitchesForm
from .models import MemoryItem
from .timeline import memory_timeline


@require_GET
@login_required
@never_cache
def my_memory(request):
    """GET /memory/ — the user's profile, preferences and facts with where each was learned,
    pending confirmations, and MEMORY.md as agents see it."""
    return render(request, "profiles/my_memory.html", page_selectors.memory_overview(user=request.user))


@require_POST
@login_required
def item_delete(request, pk: int):
    """POST /memory/items/<id>/delete — delete one current item (audited); 404 when it is not
    one of the user's current items."""
    try:
        services.memory_item_delete(user=request.user, item_id=pk)
    except MemoryItem.DoesNotExist as exc:
        raise Http404("no such memory item") from exc
    messages.success(request, _("The entry was deleted. Agents no longer see it."))
    return redirect("memory:home")


def _confirmation(request, pk: int, action: str):
    service = confirmation_confirm if action == "confirm" else confirmation_reject
    try:
        service(user=request.user, confirmation_id=pk)
    except ConfirmationError as exc:
        raise Http404("no such pending confirmation") from exc
    if action == "confirm":
        messages.success(request, _("Confirmed: the new value stays."))
    else:
        messages.success(request, _("Rejected: the earlier value is current again."))
    return redirect("memory:home")


@require_POST
@login_required
def confirmation_confirm_view(request, pk: int):
    """POST /memory/confirmations/<id>/confirm — keep the new value."""
    return _confirmation(request, pk, "confirm")


@require_POST
@login_required
def confirmation_reject_view(request, pk: int):
    """POST /memory/confirmations/<id>/reject — go back to the earlier value."""
    return _confirmation(request, pk, "reject")


@require_http_methods(["GET", "POST"])
@login_required
def clear_all(request):
    """GET /memory/clear/ — the confirmation step; POST with ``confirm`` (and optionally
    ``include_history``) deletes everything (``services.memory_clear_all``). An
    unconfirmed POST shows the form again with status 400."""
    form = ClearAllForm(request.POST or None)
    if request.method == "POST":
        if not form.is_valid():
            return render(request, "profiles/clear.html", {"form": form}, status=400)
        counts = services.memory_clear_all(user=request.user, include_history=form.cleaned_data["include_history"])
        return render(request, "profiles/cleared.html", {"counts": counts, "history": form.cleaned_data["include_history"]})
    return render(request, "profiles/clear.html", {"form": form})


@require_http_methods(["GET", "POST"])
@login_required
def switches(request):
    """GET/POST /memory/switches/ — memory on/off and the per-expert switches; effective at once
    (``services.memory_settings_update``)."""
    overview = page_selectors.switches_overview(user=request.user)
    if request.method == "POST":
        form = SwitchesForm(request.POST, experts=overview["experts"])
        if form.is_valid():
            services.memory_settings_update(
                user=request.user, memory_enabled=form.cleaned_data["memory_enabled"],
                experts_disabled=form.disabled_slugs(), experts_excluded_from_extraction=form.excluded_slugs(),
                actor=request.user,
            )
            messages.success(request, _("Your switches are saved and in force now."))
            return redirect("memory:switches")
        return render(request, "profiles/switches.html",
                      {"form": form, "memory_enabled": overview["memory_enabled"]}, status=400)
    form = SwitchesForm(initial={"memory_enabled": overview["memory_enabled"]}, experts=overview["experts"])
    return render(request, "profiles/switches.html", {"form": form, "memory_enabled": overview["memory_enabled"]})


@require_GET
@login_required
@never_cache
def history(request):
    """GET /memory/history/ — what happened to each entry and when (``profiles.timeline``):
    learned, changed from an earlier value, deleted, restored. Earlier values are never shown;
    the diff of versions is on the staff pages (snapshots are rectified, so versions would read
    as identical to the user)."""
    entries = memory_timeline(user=request.user, lang=request.LANGUAGE_CODE)
    return render(request, "profiles/history.html", {"entries": entries})


def versions_and_diff(request, *, user) -> tuple[list[dict], DiffForm, dict | None, int]:
    """The version list and the ``?old=&new=`` diff of ``user``'s memory, for the staff versions
    page (the user's history page is the timeline): ``(versions, form, diff or None, status)`` —
    status 400 for malformed numbers (the form carries the errors); with no query and two or
    more versions the form proposes the newest two. Raises ``Http404`` for a version that is
    not retained."""
    versions = page_selectors.versions_list(user=user)
    form = DiffForm(request.GET or None)
    diff, status = None, 200
    if form.is_bound:
        if form.is_valid():
            diff = page_selectors.snapshot_diff(user=user, old=form.cleaned_data["old"], new=form.cleaned_data["new"])
            if diff is None:
                raise Http404("no such version")
        else:
            status = 400
    elif len(versions) >= 2:
        form = DiffForm(initial={"old": versions[1]["version"], "new": versions[0]["version"]})
    return versions, form, diff, status


@require_GET
@login_required
@never_cache
def kept_out(request):
    """GET /memory/kept-out/ — what the sanitizer blocked from the user's memory (masked previews)."""
    return render(request, "profiles/kept_out.html", {"records": page_selectors.kept_out_list(user=request.user)})


@require_POST
@login_required
def kept_out_delete(request):
    """POST /memory/kept-out/delete — delete all of the user's quarantine records now (audited)."""
    n = services.memory_quarantine_clear(user=request.user)
    messages.success(request, _("Deleted %(count)s kept-out record(s).") % {"count": n})
    return redirect("memory:kept-out")


@require_GET
@login_required
def export(request, fmt: str):
    """GET /memory/export.json | /memory/export.md — the user's own memory as a download."""
    if fmt == "json":
        body, ctype = page_selectors.export_json(user=request.user), "application/json; charset=utf-8"
    else:
        body, ctype = page_selectors.export_markdown(user=request.user), "text/markdown; charset=utf-8"
    resp = HttpResponse(body, content_type=ctype)
    resp["Content-Disposition"] = f'attachment; filename="bizmemory-memory.{fmt}"'
    resp["Cache-Control"] = "no-store"
    return resp
