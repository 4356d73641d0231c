"""Audit samples: how the product measures its own quality. Experts and editors draw a
seeded random sample of living units, stratified by category, and judge each unit on six
questions; a wrong unit can be fixed from the same screen (moved to another concept, or
sent to triage). Every judgement and fix is one audited, revertible change.
"""

from __future__ import annotations

import math
import random
import secrets
from collections import defaultdict

from django.db import transaction
from django.utils import timezone

from curation.models import AuditEvent, AuditJudgement, AuditSample
from curation.roles import require_role
from curation.services.audit import audit_record, audit_revert, note_checked, states_of
from curation.services.taxonomy import units_move
from curation.services.triage import TriageRefused, unit_triage_send
from knowledge.models import AtomicUnit, Category

JUDGE_PERMISSION = "curation.judge_auditsample"
QUESTIONS = (
    ("concept_right", "Filed under the right concept (or the best one its category has)"),
    ("standalone", "Understandable on its own, without the page around it"),
    ("type_right", "Type right (a threshold states an amount; eligibility says who qualifies)"),
    ("value_right", "Structured value right (of the units that carry one)"),
    ("validity_right", "Validity dates right (of the units given dates)"),
    ("useful", "Useful to someone's question (not navigation or boilerplate)"),
)
ANSWER_FIELDS = tuple(name for name, _ in QUESTIONS)
JUDGEMENT_FIELDS = (*ANSWER_FIELDS, "note", "judged_by", "judged_at")
CREATED_FIELDS = ("sample", "unit", "category", "provider", "unit_type", *JUDGEMENT_FIELDS)
REVERTIBLE_HERE = ("audit.judge", "triage.send")
MAX_SAMPLE = 1000


class AuditRefused(ValueError):
    """The draw, judgement or fix is not possible as asked; says why."""


def require_auditor(user) -> None:
    require_role(user, JUDGE_PERMISSION, action="draw and judge audit samples")


# --- drawing ------------------------------------------------------------------------------


def sample_draw(
    *,
    size: int,
    user,
    seed: int | None = None,
    category_id: int | None = None,
    provider: str = "",
) -> AuditSample:
    """Draw `size` living units, stratified by category. Deterministic: the same seed, size
    and filters on the same knowledge base give the same units in the same order."""
    require_auditor(user)
    if not 1 <= size <= MAX_SAMPLE:
        raise AuditRefused(f"size: 1 to {MAX_SAMPLE} units")
    if provider and provider not in AtomicUnit.Provider.values:
        raise AuditRefused(f"provider: no provider {provider!r}")
    seed = secrets.randbelow(10**9) if seed is None else seed
    strata = _strata(category_id=category_id, provider=provider)
    if not strata:
        raise AuditRefused("no living units match; nothing to sample")
    quotas = stratified_quotas({slug: len(ids) for slug, ids in strata.items()}, size)
    chosen = []
    for slug, quota in sorted(quotas.items()):
        chosen += random.Random(f"{seed}:{slug}").sample(strata[slug], quota)
    random.Random(seed).shuffle(chosen)
    return AuditSample.objects.create(
        seed=seed,
        size=size,
        category_id=category_id,
        provider=provider,
        drawn_by=user,
        population=sum(len(ids) for ids in strata.values()),
        unit_ids=chosen,
        stratification={s: {"live": len(strata[s]), "drawn": quotas[s]} for s in sorted(strata)},
    )


def _strata(*, category_id: int | None, provider: str) -> dict[str, list[int]]:
    units = AtomicUnit.objects.alive()
    if category_id is not None:
        if not Category.objects.filter(pk=category_id).exists():
            raise AuditRefused(f"category: no category {category_id}")
        units = units.filter(concept__category_id=category_id)
    if provider:
        units = units.filter(provider=provider)
    strata: dict[str, list[int]] = defaultdict(list)
    for pk, slug in units.order_by("pk").values_list("pk", "concept__category__slug"):
        strata[slug].append(pk)
    return dict(strata)


def stratified_quotas(sizes: dict[str, int], n: int) -> dict[str, int]:
    """Units to draw per stratum: proportional to its size (largest remainders), at least one
    per non-empty stratum when n allows, never more than it holds. Ties go by name."""
    total = sum(sizes.values())
    n = min(n, total)
    exact = {name: n * size / total for name, size in sizes.items()}
    if n < len(sizes):
        biggest = sorted(sizes, key=lambda name: (-sizes[name], name))[:n]
        return {name: int(name in biggest) for name in sizes}
    quotas = {name: min(size, max(1, math.floor(exact[name]))) for name, size in sizes.items()}
    while sum(quotas.values()) < n:
        room = [name for name in sizes if quotas[name] < sizes[name]]
        quotas[max(room, key=lambda name: (exact[name] - quotas[name], _desc(name)))] += 1
    while sum(quotas.values()) > n:
        spare = [name for name in sizes if quotas[name] > 1]
        quotas[min(spare, key=lambda name: (exact[name] - quotas[name], name))] -= 1
    return quotas


def _desc(name: str) -> tuple[int, ...]:
    """A key that orders names backwards, so max() breaks ties by the first name."""
    return tuple(-ord(char) for char in name)


# --- judging ------------------------------------------------------------------------------


def judgement_record(
    *, sample_id: int, unit_id: int, answers: dict[str, str], user, note: str = ""
) -> AuditEvent:
    """Record one unit's six answers in a sample, or replace the earlier ones."""
    require_auditor(user)
    answers = _valid_answers(answers)
    note = note_checked(note, AuditRefused)
    with transaction.atomic():
        sample = AuditSample.objects.select_for_update().get(pk=sample_id)
        if unit_id not in sample.unit_ids:
            raise AuditRefused(f"unit: unit {unit_id} is not in sample {sample.pk}")
        judgement = AuditJudgement.objects.filter(sample=sample, unit_id=unit_id).first()
        if judgement is None:
            judgement = _new_judgement(sample, unit_id)
            before = {str(judgement.pk): None}
            fields = CREATED_FIELDS
        else:
            before = states_of([judgement], JUDGEMENT_FIELDS)
            fields = JUDGEMENT_FIELDS
        for name, answer in answers.items():
            setattr(judgement, name, answer)
        judgement.note, judgement.judged_by, judgement.judged_at = note, user, timezone.now()
        judgement.save()
        return audit_record(
            actor=user,
            action="audit.judge",
            target=sample,
            note=note,
            summary=f"Judged unit {unit_id} in audit sample {sample.pk}: {_verdict(judgement)}",
            before={"judgement": before},
            after={"judgement": states_of([judgement], fields)},
        )


def _valid_answers(answers: dict[str, str]) -> dict[str, str]:
    allowed = set(AuditJudgement.Answer.values)
    missing = [name for name in ANSWER_FIELDS if answers.get(name) not in allowed]
    if missing:
        raise AuditRefused(f"{missing[0]}: answer yes, no or n/a")
    return {name: answers[name] for name in ANSWER_FIELDS}


def _new_judgement(sample: AuditSample, unit_id: int) -> AuditJudgement:
    unit = AtomicUnit.objects.select_related("concept").get(pk=unit_id)
    judgement = AuditJudgement(
        sample=sample,
        unit=unit,
        category_id=unit.concept.category_id,
        provider=unit.provider,
        unit_type=unit.unit_type,
        judged_at=timezone.now(),
    )
    for name in ANSWER_FIELDS:
        setattr(judgement, name, AuditJudgement.Answer.NA)
    judgement.save()
    return judgement


def _verdict(judgement: AuditJudgement) -> str:
    noes = [name for name in ANSWER_FIELDS if getattr(judgement, name) == "no"]
    return "right on every count" if not noes else "wrong on " + ", ".join(noes)


# --- fixing from the audit ----------------------------------------------------------------


def audit_unit_move(*, sample_id: int, unit_id: int, concept_id: int, user) -> AuditEvent:
    """The existing move (editors only), noted as coming from the sample."""
    require_auditor(user)
    _sample_holding(sample_id, unit_id)
    return units_move(
        unit_ids=[unit_id],
        concept_id=concept_id,
        user=user,
        note=f"from audit sample {sample_id}",
    )


def audit_unit_triage(*, sample_id: int, unit_id: int, user, reason: str) -> AuditEvent:
    """Send a wrong unit of the sample to the editors' triage list (`unit_triage_send`),
    noted as coming from the sample; the sample's judges, editors too, may."""
    require_auditor(user)
    _sample_holding(sample_id, unit_id)
    try:
        return unit_triage_send(
            unit_id=unit_id,
            user=user,
            reason=reason,
            origin=f"audit sample {sample_id}",
            reason_code="audit",
            permission=JUDGE_PERMISSION,
        )
    except TriageRefused as exc:
        raise AuditRefused(str(exc)) from None


def _sample_holding(sample_id: int, unit_id: int) -> AuditSample:
    sample = AuditSample.objects.get(pk=sample_id)
    if unit_id not in sample.unit_ids:
        raise AuditRefused(f"unit: unit {unit_id} is not in sample {sample.pk}")
    return sample


def audit_change_revert(*, event_id: int, user) -> AuditEvent:
    """Undo a judgement or a send-to-triage made from an audit sample (moves are undone
    where every move is, in the editors' change log)."""
    require_auditor(user)
    event = AuditEvent.objects.get(pk=event_id)
    if event.action not in REVERTIBLE_HERE:
        raise AuditRefused("only judgements and sends to triage are undone here")
    return audit_revert(event_id=event_id, user=user, permission=JUDGE_PERMISSION)
