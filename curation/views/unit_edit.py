"""The unit editor: an expert corrects a unit's facts beside its page snapshot, splits it,
joins it with units of the same statement, and undoes the last correction. Keyboard-first
(static/curation/unit_edit.js); every change a POST through one service of
curation.services.units, answered with the editor's partial (htmx) or the whole page."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from curation.forms.unit_edit import JoinForm, SplitForm, UnitCorrectionForm
from curation.models import AuditEvent
from curation.presenters import unit_edit as presenters
from curation.services import units as services
from curation.services.audit import RevertRefused
from curation.services.unit_checks import CorrectionRefused
from curation.views.access import Notice, signed_in_and
from curation.views.responses import render_page_or_partial
from knowledge.models import AtomicUnit

TEMPLATE = "curation/unit_edit.html"
corrector_required = signed_in_and(services.require_corrector)


def _unit(unit_id: int) -> AtomicUnit:
    return get_object_or_404(
        AtomicUnit.objects.select_related(
            "concept__category", "source", "snapshot", "corrected_by"
        ),
        pk=unit_id,
    )


def _editor(request, unit: AtomicUnit, *, form=None, notice: Notice | None = None, status=200):
    context = {
        "unit": unit,
        "form": form or UnitCorrectionForm(unit=unit),
        "notice": notice,
        "changes": presenters.machine_changes(unit),
        "last_correction": presenters.last_correction(unit),
        "join_candidates": presenters.join_candidates(unit) if unit.deleted_at is None else [],
        "panel": presenters.page_panel(unit),
        "concept_ids": presenters.concept_ids(),
    }
    response = render_page_or_partial(
        request, TEMPLATE, "editor", context, title=f"Correct unit {unit.pk}"
    )
    response.status_code = status
    return response


@require_http_methods(["GET", "POST"])
@never_cache
@corrector_required
def unit_edit(request: HttpRequest, unit_id: int) -> HttpResponse:
    unit = _unit(unit_id)
    if request.method == "GET":
        return _editor(request, unit)
    form = UnitCorrectionForm(request.POST, unit=unit)
    if not form.is_valid():
        problems = [f"{name}: {' '.join(errors)}" for name, errors in form.errors.items()]
        notice = Notice("error", "Not corrected: " + "; ".join(problems))
        return _editor(request, unit, form=form, notice=notice, status=422)
    try:
        event = services.unit_correct(
            unit_id=unit.pk,
            user=request.user,
            note=form.cleaned_data["note"],
            version=form.cleaned_data["version"],
            **form.changes(),
        )
    except CorrectionRefused as exc:
        return _editor(
            request, unit, form=form, notice=Notice.refused("Not corrected", exc), status=422
        )
    return _editor(request, _unit(unit_id), notice=Notice.done(event))


@require_POST
@corrector_required
def unit_split(request: HttpRequest, unit_id: int) -> HttpResponse:
    unit = _unit(unit_id)
    form = SplitForm(request.POST)
    if not form.is_valid():
        problems = [f"{name}: {' '.join(errors)}" for name, errors in form.errors.items()]
        return _editor(
            request, unit, notice=Notice("error", "Not split: " + "; ".join(problems)), status=422
        )
    try:
        event = services.unit_split(
            unit_id=unit.pk,
            user=request.user,
            parts=form.parts(),
            note=form.cleaned_data["note"],
            version=form.cleaned_data["version"],
        )
    except CorrectionRefused as exc:
        return _editor(request, unit, notice=Notice.refused("Not split", exc), status=422)
    return _editor(request, _unit(unit_id), notice=Notice.done(event))


@require_POST
@corrector_required
def unit_join(request: HttpRequest, unit_id: int) -> HttpResponse:
    unit = _unit(unit_id)
    form = JoinForm(request.POST, candidates=presenters.join_candidates(unit))
    if not form.is_valid():
        return _editor(
            request,
            unit,
            notice=Notice("error", "Not joined: choose the units to join"),
            status=422,
        )
    try:
        event = services.unit_join(
            unit_ids=[unit.pk, *form.cleaned_data["units"]],
            user=request.user,
            text=form.cleaned_data["text"],
            note=form.cleaned_data["note"],
            versions=form.versions(),
        )
    except CorrectionRefused as exc:
        return _editor(request, unit, notice=Notice.refused("Not joined", exc), status=422)
    return _editor(request, _unit(event.target_id), notice=Notice.done(event))


@require_POST
@corrector_required
def correction_undo(request: HttpRequest, event_id: int) -> HttpResponse:
    event = get_object_or_404(AuditEvent, pk=event_id, target_type="atomicunit")
    unit = _unit(event.target_id)
    try:
        undone = services.unit_correction_undo(event_id=event.pk, user=request.user)
    except (CorrectionRefused, RevertRefused) as exc:
        return _editor(request, unit, notice=Notice.refused("Not undone", exc), status=409)
    return _editor(request, _unit(unit.pk), notice=Notice("success", undone.summary))
