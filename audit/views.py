"""Staff review pages for the quarantine (server-rendered, no JavaScript).

Anonymous visitors are sent to the login page; signed-in non-staff users get 403. Staff see
the list and the masked records; each action needs its own permission on top (reveal
``audit.reveal_quarantine``, delete now ``audit.delete_quarantine_now``, false positive
``audit.release_quarantine``; the group "memory officers" holds them, superusers hold all):
without it, 403 naming what is missing, and the page hides the button. The services check the
permission (``audit.permissions``); the views let their ``PermissionDenied`` through to the 403
handler. Actions are POST only (CSRF-protected; reveal then redirects to a GET that redeems a
single-use token); the logic lives in ``audit.services``.
"""

from __future__ import annotations

import functools

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from .labels import hit_type_name

from . import services
from .forms import QuarantineFilterForm
from .selectors import quarantine_detail, quarantine_list

PAGE_SIZE = 50


def _type_names(codes) -> list[dict]:
    """``[{"code", "name"}]`` for sanitizer entity-type codes, the name readable and
    translated (``audit.labels.hit_type_name``, the user pages' mapping)."""
    return [{"code": c, "name": hit_type_name(c)} for c in codes if c]


def _unreadable_message(pk: int) -> str:
    return _("Quarantine record %(pk)s cannot be decrypted with the configured key.") % {"pk": pk}


def _detail_context(rec, **extra) -> dict:
    """Template context of the detail page: the record, its readable hit types and hits."""
    hits = [{**h, "name": hit_type_name(h.get("type", ""))} for h in (rec.hits or [])]
    return {"rec": rec, "type_names": _type_names(rec.hit_types.split(",")), "hits": hits, **extra}


def staff_required(view):
    """Anonymous → login redirect; authenticated non-staff → 403 (PermissionDenied)."""

    @functools.wraps(view)
    def wrapper(request, *args, **kwargs):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not request.user.is_staff:
            raise PermissionDenied(_("This page is for staff only."))
        return view(request, *args, **kwargs)

    return wrapper


@require_GET
@staff_required
def quarantine_list_view(request):
    """GET /review/?type=&date_from=&date_to=&user=&page= — quarantine records, 50 a page,
    with hit types and masked previews. Invalid filters → the page with errors, status 400."""
    form = QuarantineFilterForm(request.GET or None)
    status = 200
    filters = {}
    if form.is_bound:
        if form.is_valid():
            d = form.cleaned_data
            filters = {"hit_type": d["type"], "date_from": d["date_from"], "date_to": d["date_to"], "username": d["user"].strip()}
        else:
            status = 400
    page = Paginator(quarantine_list(**filters), PAGE_SIZE).get_page(request.GET.get("page"))
    for rec in page:
        rec.type_names = _type_names(rec.hit_types.split(","))
    query = request.GET.copy()
    query.pop("page", None)
    return render(
        request, "audit/quarantine_list.html", {"form": form, "page": page, "query": query.urlencode()}, status=status
    )


def _record_or_404(pk: int):
    rec = quarantine_detail(record_id=pk)
    if rec is None:
        raise Http404("no such quarantine record")
    return rec


@require_GET
@staff_required
def quarantine_detail_view(request, pk: int):
    """GET /review/<id>/ — one record: masked preview, hits, references, and the actions."""
    return render(request, "audit/quarantine_detail.html", _detail_context(_record_or_404(pk)))


def _reveal_refusals() -> dict[str, tuple[int, str]]:
    """``{RevealRefused.reason: (HTTP status, message)}`` (translated at call time)."""
    again = _("Press “Reveal original” again to see it (that is audited again).")
    return {
        "used": (410, _("This reveal was already shown once; a refresh does not show it again.") + " " + again),
        "expired": (410, _("This reveal link has expired.") + " " + again),
        "other_user": (403, _("This reveal link was issued to another staff account.")),
        "invalid": (400, _("This reveal link is not valid for this record.")),
    }


@never_cache
@require_http_methods(["GET", "POST"])
@staff_required
def quarantine_reveal_view(request, pk: int):
    """POST /review/<id>/reveal — issue a short-lived single-use reveal token and redirect (303)
    to GET /review/<id>/reveal?token=…, which shows the decrypted original once, audited, with
    ``Cache-Control: no-store``. A refresh, a second GET, another account's GET or a late one
    (``services.REVEAL_TOKEN_SECONDS``) reveals nothing and audits nothing: the masked page with
    the reason (410 used / expired, 403 another account, 400 invalid). GET without a token →
    the detail page. Without ``audit.reveal_quarantine`` the service refuses: 403. When the cache
    that holds the tokens cannot be reached (POST or GET), nothing is revealed: the masked page
    saying so, 503 with ``Retry-After`` (``services.RevealUnavailable``)."""
    rec = _record_or_404(pk)
    detail_url = reverse("audit:quarantine-detail", args=[pk])
    if request.method == "POST":
        try:
            token = services.quarantine_reveal_token_issue(record_id=pk, actor=request.user)
        except services.RevealUnavailable:
            return _reveal_unavailable_page(request, rec)
        resp = HttpResponseRedirect(f"{reverse('audit:quarantine-reveal', args=[pk])}?{urlencode({'token': token})}")
        resp.status_code = 303
        return resp
    token = request.GET.get("token")
    if not token:
        return redirect(detail_url)
    try:
        original = services.quarantine_reveal_token_redeem(token=token, record_id=pk, actor=request.user)
    except services.RevealRefused as exc:
        status, message = _reveal_refusals()[exc.reason]
        return render(request, "audit/quarantine_detail.html", _detail_context(rec, error=message), status=status)
    except services.RevealUnavailable:
        return _reveal_unavailable_page(request, rec)
    except services.QuarantineGone as exc:
        raise Http404(str(exc)) from exc
    except services.QuarantineUnreadable:
        return render(
            request, "audit/quarantine_detail.html", _detail_context(_record_or_404(pk), error=_unreadable_message(pk)), status=409
        )
    return render(request, "audit/quarantine_detail.html", _detail_context(_record_or_404(pk), original=original, revealed=True))


REVEAL_RETRY_SECONDS = 30


def _reveal_unavailable_page(request, rec):
    """The masked detail page saying the reveal cannot be done now (503 with ``Retry-After``):
    the reveal tokens' cache cannot be reached, so nothing is revealed (fail closed)."""
    message = _("Revealing is unavailable right now: the shared cache that keeps reveal links single-use "
                "cannot be reached. Nothing was revealed. Try again in a minute; if it persists, ask an "
                "administrator to check the cache (Redis).")
    resp = render(request, "audit/quarantine_detail.html", _detail_context(rec, error=message), status=503)
    resp["Retry-After"] = str(REVEAL_RETRY_SECONDS)
    return resp


@require_POST
@staff_required
def quarantine_delete_view(request, pk: int):
    """POST /review/<id>/delete — delete the record now (audited), back to the list. Without
    ``audit.delete_quarantine_now`` the service refuses: 403."""
    try:
        services.quarantine_delete(record_id=pk, actor=request.user)
    except services.QuarantineGone as exc:
        raise Http404(str(exc)) from exc
    messages.success(request, _("Quarantine record %(pk)s deleted.") % {"pk": pk})
    return redirect("audit:quarantine-list")


@require_POST
@staff_required
def quarantine_false_positive_view(request, pk: int):
    """POST /review/<id>/false-positive — re-submit the message with its flagged spans
    allowed, delete the record (audited), back to the list with the counts. Without
    ``audit.release_quarantine`` the service refuses: 403."""
    try:
        res = services.quarantine_mark_false_positive(record_id=pk, actor=request.user)
    except services.QuarantineGone as exc:
        raise Http404(str(exc)) from exc
    except services.QuarantineUnreadable:
        return render(
            request, "audit/quarantine_detail.html", _detail_context(_record_or_404(pk), error=_unreadable_message(pk)), status=409
        )
    reasons = {
        "ok": _("ok"),
        "injection": _("the message tries to write into memory; nothing extracted"),
        "memory_off": _("the user has switched memory off; nothing written"),
    }
    messages.success(
        request,
        ngettext(
            "Quarantine record %(pk)s marked as a false positive: %(written)s of %(candidates)s candidate "
            "written to the journal, %(dropped)s still blocked (%(reason)s).",
            "Quarantine record %(pk)s marked as a false positive: %(written)s of %(candidates)s candidates "
            "written to the journal, %(dropped)s still blocked (%(reason)s).",
            res.candidates,
        )
        % {
            "pk": pk, "written": res.written, "candidates": res.candidates, "dropped": res.dropped,
            "reason": reasons.get(res.reason, res.reason),
        },
    )
    return redirect("audit:quarantine-list")
