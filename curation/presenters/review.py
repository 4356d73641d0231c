"""What the review queue shows of a pair: the two units side by side with their word diff,
their values, statuses and sign-offs, and why one counts as the newer."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import SafeString

from curation.models import SupersedingCandidate
from curation.presenters.worddiff import segments_html, word_diff
from curation.selectors.jobs import provider_label
from curation.selectors.review import Signoff, unit_signoffs
from knowledge.models import AtomicUnit
from knowledge.text.amounts import amount_text

NEWER_BASIS_LABELS = {
    "valid_from": "the newer unit's validity starts later",
    "valid_to": "the newer unit's validity ends later",
    "validity": "its validity dates are later",
    "snapshot": "it comes from a later version of the page",
    "snapshot_date": "it comes from a later version of the page",
    "fetched_at": "it comes from a later version of the page",
    "public_updated_at": "its page was updated later on gov.uk",
    "adjudicator": "the adjudicator said so",
    "llm": "the adjudicator said so",
}


def newer_basis_label(basis: str) -> str:
    return NEWER_BASIS_LABELS.get(basis, basis.replace("_", " ") or "not recorded")


def value_label(unit: AtomicUnit) -> str:
    """'£12,570 a year', '20%', '39 weeks', or '' when the unit holds no value."""
    if unit.value_amount is None:
        return ""
    text = amount_text(unit.value_amount, unit.value_unit)
    if unit.value_period:
        text += f" {unit.get_value_period_display()}"
    return text


@dataclass(frozen=True)
class UnitSide:
    unit: AtomicUnit
    diff_html: SafeString
    value: str
    status: str
    evidence_url: str
    signoff: Signoff | None = None

    @property
    def removed(self) -> bool:
        return self.unit.deleted_at is not None

    @property
    def signed_off(self) -> bool:
        return self.unit.review_status == AtomicUnit.ReviewStatus.APPROVED

    @property
    def may_sign_off(self) -> bool:
        return self.unit.review_status == AtomicUnit.ReviewStatus.PENDING and not self.removed


@dataclass(frozen=True)
class PairView:
    candidate: SupersedingCandidate
    older: UnitSide
    newer: UnitSide
    adjudicator_label: str
    is_llm: bool
    newer_basis: str

    @property
    def pending(self) -> bool:
        return self.candidate.status == SupersedingCandidate.Status.PENDING


def pair_view(candidate: SupersedingCandidate, *, today: dt.date | None = None) -> PairView:
    today = today or timezone.localdate()
    old_segments, new_segments = word_diff(candidate.older.text, candidate.newer.text)
    signoffs = unit_signoffs(unit_ids=[candidate.older_id, candidate.newer_id])
    return PairView(
        candidate=candidate,
        older=_side(candidate.older, segments_html(old_segments, tag="del"), today, signoffs),
        newer=_side(candidate.newer, segments_html(new_segments, tag="ins"), today, signoffs),
        adjudicator_label=provider_label(candidate.adjudicator),
        is_llm=candidate.adjudicator != "heuristic",
        newer_basis=newer_basis_label(candidate.newer_basis),
    )


def _side(
    unit: AtomicUnit, diff_html: SafeString, today: dt.date, signoffs: dict[int, Signoff]
) -> UnitSide:
    status = "removed" if unit.deleted_at else unit.temporal_status_on(today).value
    return UnitSide(
        unit=unit,
        diff_html=diff_html,
        value=value_label(unit),
        status=status,
        evidence_url=evidence_url(unit),
        signoff=signoffs.get(unit.pk) if unit.review_status == "approved" else None,
    )


def evidence_url(unit: AtomicUnit) -> str:
    """The unit's snapshot, scrolled to its quote."""
    url = reverse("curation:snapshot", args=[unit.snapshot_id])
    return f"{url}?unit={unit.pk}#evidence"
