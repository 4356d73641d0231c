"""The audit screen (domain experts and editors): samples drawn and their summaries, drawing a
sample, judging its units one at a time with the keyboard (fixing a wrong one in place), and
the estimated precision with Wilson intervals.

htmx requests get the judging partial; a plain browser gets whole pages and redirects."""

from __future__ import annotations

from urllib.parse import urlencode

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from curation.forms.audit_sample import DrawForm, JudgementForm, MoveForm, TriageForm
from curation.forms.fields import whole_number
from curation.models import AuditJudgement, AuditSample
from curation.presenters.audit_chart import precision_chart
from curation.presenters.review import evidence_url, value_label
from curation.selectors import audit_sample as selectors
from curation.services import audit_sample as services
from curation.services.audit import RevertRefused
from curation.services.taxonomy import TaxonomyChangeRefused, require_editor
from curation.views.access import Notice, admin_page, notice_message, signed_in_and
from curation.views.paging import paginate
from curation.views.responses import render_page_or_partial, revert_notice
from knowledge.models import AtomicUnit, Concept
from knowledge.text.sections import section_at

TEMPLATE = "curation/audit.html"
JUDGE_TEMPLATE = "curation/audit_judge.html"
RESULTS_TEMPLATE = "curation/audit_results.html"
auditor_required = signed_in_and(services.require_auditor)


@require_GET
@never_cache
@auditor_required
def audit(request: HttpRequest) -> HttpResponse:
    context = _sample_list(page=request.GET.get("page"))
    return render_page_or_partial(
        request,
        TEMPLATE,
        "sample-list",
        context,
        title="Audit samples",
        page=lambda: {"form": DrawForm()},
    )


@require_POST
@auditor_required
def audit_draw(request: HttpRequest) -> HttpResponse:
    form = DrawForm(request.POST)
    if not form.is_valid():
        return _samples_page(request, form, status=400)
    data = form.cleaned_data
    try:
        sample = services.sample_draw(
            size=data["size"],
            seed=data["seed"],
            user=request.user,
            category_id=data["category"].pk if data["category"] else None,
            provider=data["provider"] or "",
        )
    except services.AuditRefused as exc:
        form.add_error(None, str(exc))
        return _samples_page(request, form, status=400)
    return redirect("curation:audit-sample", sample_id=sample.pk)


def _samples_page(request, form: DrawForm, *, status: int) -> HttpResponse:
    page = admin_page(request, "Audit samples", form=form, **_sample_list(page=None))
    return render(request, TEMPLATE, page, status=status)


def _sample_list(*, page: str | None) -> dict:
    pager = paginate(
        selectors.samples_list(),
        number=page,
        per_page=selectors.SAMPLES_PER_PAGE,
        url=reverse("curation:audit"),
        target="audit-samples-list",
    )
    samples = list(pager.page.object_list)
    summaries = selectors.sample_summaries(sample_ids=[sample.pk for sample in samples])
    return {"rows": [(sample, summaries[sample.pk]) for sample in samples], "pager": pager}


@require_GET
@never_cache
@auditor_required
def audit_sample(request: HttpRequest, sample_id: int) -> HttpResponse:
    sample = _sample(sample_id)
    position = _position(sample, request.GET.get("unit"))
    context = _judging(request, sample, position)
    title = f"Audit sample {sample.pk}"
    return render_page_or_partial(request, JUDGE_TEMPLATE, "judge", context, title=title)


@require_POST
@auditor_required
def audit_judge(request: HttpRequest, sample_id: int, position: int) -> HttpResponse:
    sample = _sample(sample_id)
    unit_id = _unit_id_at(sample, position)
    form = JudgementForm(request.POST)
    if not form.is_valid():
        errors = " ".join(e for errors in form.errors.values() for e in errors)
        return _after_post(request, sample, position, Notice("error", errors), form=form)
    try:
        event = services.judgement_record(
            sample_id=sample.pk,
            unit_id=unit_id,
            answers=form.answers(),
            user=request.user,
            note=form.cleaned_data["note"],
        )
    except services.AuditRefused as exc:
        return _after_post(request, sample, position, Notice.refused("Not saved", exc))
    following = min(position + 1, len(sample.unit_ids))
    return _after_post(request, sample, following, Notice.done(event))


@require_POST
@auditor_required
def audit_move(request: HttpRequest, sample_id: int, position: int) -> HttpResponse:
    sample = _sample(sample_id)
    unit_id = _unit_id_at(sample, position)
    require_editor(request.user)
    form = MoveForm(request.POST)
    if not form.is_valid():
        return _after_post(request, sample, position, Notice("error", "Choose a concept."))
    try:
        event = services.audit_unit_move(
            sample_id=sample.pk,
            unit_id=unit_id,
            concept_id=form.cleaned_data["concept"],
            user=request.user,
        )
    except (services.AuditRefused, TaxonomyChangeRefused) as exc:
        return _after_post(request, sample, position, Notice.refused("Not moved", exc))
    return _after_post(request, sample, position, Notice.done(event))


@require_POST
@auditor_required
def audit_triage(request: HttpRequest, sample_id: int, position: int) -> HttpResponse:
    sample = _sample(sample_id)
    unit_id = _unit_id_at(sample, position)
    form = TriageForm(request.POST)
    if not form.is_valid():
        notice = Notice("error", "Say what is wrong with the unit to send it to triage.")
        return _after_post(request, sample, position, notice)
    try:
        event = services.audit_unit_triage(
            sample_id=sample.pk,
            unit_id=unit_id,
            user=request.user,
            reason=form.cleaned_data["reason"],
        )
    except services.AuditRefused as exc:
        return _after_post(request, sample, position, Notice.refused("Not sent", exc))
    return _after_post(request, sample, position, Notice.done(event))


@require_POST
@auditor_required
def audit_revert(request: HttpRequest, sample_id: int, position: int, event_id: int):
    sample = _sample(sample_id)
    _unit_id_at(sample, position)
    notice = revert_notice(
        lambda: services.audit_change_revert(event_id=event_id, user=request.user),
        missing="No such change.",
        refused="Not undone",
        refusals=(RevertRefused, services.AuditRefused),
    )
    return _after_post(request, sample, position, notice)


@require_GET
@never_cache
@auditor_required
def audit_results(request: HttpRequest) -> HttpResponse:
    sample_id = whole_number(request.GET.get("sample", ""))
    sample = _sample(sample_id) if sample_id else None
    overall = selectors.audit_results()  # the chart is always over every sample
    results = selectors.audit_results(sample_id=sample.pk) if sample else overall
    page = admin_page(
        request,
        "Audit results",
        sample=sample,
        results=results,
        columns=selectors.COLUMNS,
        chart=precision_chart(overall.over_time),
        question_rows=list(zip(selectors.COLUMNS, results.overall.estimates, strict=True)),
    )
    return render(request, RESULTS_TEMPLATE, page)


def _sample(sample_id: int) -> AuditSample:
    try:
        return selectors.sample_get(sample_id=sample_id)
    except AuditSample.DoesNotExist:
        raise Http404("No such sample.") from None


def _unit_id_at(sample: AuditSample, position: int) -> int:
    if not 1 <= position <= len(sample.unit_ids):
        raise Http404("No such unit in this sample.")
    return sample.unit_ids[position - 1]


def _position(sample: AuditSample, raw: str | None) -> int:
    if raw and raw.isascii() and raw.isdigit() and 1 <= int(raw) <= len(sample.unit_ids):
        return int(raw)
    return selectors.first_unjudged(sample=sample)


def _after_post(request, sample, position: int, notice: Notice, form=None) -> HttpResponse:
    """htmx: the judging partial at `position` with the notice. A plain post: back to it."""
    if request.htmx:
        context = _judging(request, sample, position, notice=notice, form=form)
        return render(request, f"{JUDGE_TEMPLATE}#judge", context)
    notice_message(request, Notice(notice.level, notice.text, details=notice.details))
    url = reverse("curation:audit-sample", args=[sample.pk])
    return redirect(f"{url}?{urlencode({'unit': position})}")


def _judging(request, sample, position: int, *, notice=None, form=None) -> dict:
    unit = selectors.sample_unit(sample=sample, position=position)
    judgements = selectors.judgements_by_unit(sample=sample)
    judgement = judgements.get(unit.pk)
    return {
        "sample": sample,
        "position": position,
        "total": len(sample.unit_ids),
        "judged": len(judgements),
        "percent": round(100 * len(judgements) / max(len(sample.unit_ids), 1)),
        "unit": unit,
        "value": value_label(unit),
        "evidence_url": evidence_url(unit),
        "heading": _heading(unit),
        "questions": _questions(unit, judgement, form),
        "answer_choices": AuditJudgement.Answer.choices,
        "note": judgement.note if judgement else "",
        "judgement": judgement,
        "notice": notice,
        "revertible": notice and notice.event and notice.event.action in services.REVERTIBLE_HERE,
        "may_move": _may_move(request.user),
        "concepts": Concept.objects.filter(status=Concept.Status.ACTIVE).order_by("taxonomy_id"),
    }


def _heading(unit: AtomicUnit) -> str:
    section = section_at(unit.snapshot.sections or [], unit.evidence_start)
    path = section.get("heading_path") if section else None
    return " › ".join(path) if path else unit.source.title


def _questions(unit: AtomicUnit, judgement, form) -> list[dict]:
    """Each question with the answer to show: the form's on a refused post, the saved one,
    else n/a for a value or dates the unit does not carry, else none yet."""
    shown = []
    for index, (name, label) in enumerate(services.QUESTIONS, start=1):
        answer = form.data.get(name, "") if form is not None else ""
        if not answer and judgement is not None:
            answer = getattr(judgement, name)
        if not answer and name == "value_right" and unit.value_amount is None:
            answer = "na"
        if not answer and name == "validity_right" and not (unit.valid_from or unit.valid_to):
            answer = "na"
        shown.append({"key": index, "name": name, "label": label, "answer": answer})
    return shown


def _may_move(user) -> bool:
    try:
        require_editor(user)
    except PermissionDenied:
        return False
    return True
