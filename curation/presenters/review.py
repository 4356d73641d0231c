"""What the review screens show, shaped from records: a pair side by side with its word diff,
the decisions chart as geometry for an inline SVG, an audit event's changes as readable rows,
and a page snapshot with a unit's quote marked."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.safestring import SafeString

from curation.models import AuditEvent, SupersedingCandidate
from curation.selectors import DayDecisions, provider_label
from curation.services.audit import RECORD_KINDS
from curation.worddiff import segments_html, word_diff
from knowledge.models import AtomicUnit, Concept, PageSnapshot

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
    amount = _plain_number(unit.value_amount, money=unit.value_unit == AtomicUnit.ValueUnit.GBP)
    if unit.value_unit == AtomicUnit.ValueUnit.GBP:
        text = f"£{amount}"
    elif unit.value_unit == AtomicUnit.ValueUnit.PERCENT:
        text = f"{amount}%"
    else:
        text = f"{amount} {unit.get_value_unit_display()}"
    if unit.value_period:
        text += f" {unit.get_value_period_display()}"
    return text


def _plain_number(amount: Decimal, *, money: bool) -> str:
    if amount == amount.to_integral_value():
        return f"{int(amount):,}"
    if money:
        return f"{amount:,.2f}"
    return f"{amount.normalize():,f}"


# --- a pair -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class UnitSide:
    unit: AtomicUnit
    diff_html: SafeString
    value: str
    status: str
    evidence_url: str

    @property
    def removed(self) -> bool:
        return self.unit.deleted_at is not None


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
    return PairView(
        candidate=candidate,
        older=_side(candidate.older, segments_html(old_segments, tag="del"), today),
        newer=_side(candidate.newer, segments_html(new_segments, tag="ins"), today),
        adjudicator_label=provider_label(candidate.adjudicator),
        is_llm=candidate.adjudicator != "heuristic",
        newer_basis=newer_basis_label(candidate.newer_basis),
    )


def _side(unit: AtomicUnit, diff_html: SafeString, today: dt.date) -> UnitSide:
    status = "removed" if unit.deleted_at else unit.temporal_status_on(today).value
    return UnitSide(
        unit=unit,
        diff_html=diff_html,
        value=value_label(unit),
        status=status,
        evidence_url=evidence_url(unit),
    )


def evidence_url(unit: AtomicUnit) -> str:
    """The unit's snapshot, scrolled to its quote."""
    url = reverse("curation:snapshot", args=[unit.snapshot_id])
    return f"{url}?unit={unit.pk}#evidence"


# --- the decisions chart ----------------------------------------------------------------------

CHART_HEIGHT = 90
CHART_BAR_WIDTH = 18
CHART_GAP = 6
CHART_LABEL_SPACE = 16
CHART_STACK = (("approved", "Approved"), ("rejected", "Rejected"), ("flagged", "Flagged"))


@dataclass(frozen=True)
class Bar:
    kind: str
    count: int
    y: int
    height: int


@dataclass(frozen=True)
class Column:
    x: int
    day: dt.date
    total: int
    title: str
    bars: list[Bar] = field(default_factory=list)


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    plot_height: int
    bar_width: int
    most: int
    columns: list[Column]

    @property
    def label_x(self) -> int:
        return self.bar_width // 2

    @property
    def label_y(self) -> int:
        return self.height - 3


def decisions_chart(days: list[DayDecisions]) -> Chart:
    """Stacked columns, one a day: approved at the bottom, then rejected, then flagged."""
    most = max((day.total for day in days), default=0)
    scale = CHART_HEIGHT / max(most, 1)
    columns = []
    for index, day in enumerate(days):
        base, bars = CHART_HEIGHT, []
        for kind, _ in CHART_STACK:
            count = getattr(day, kind)
            if count:
                height = max(1, round(count * scale))
                base -= height
                bars.append(Bar(kind=kind, count=count, y=base, height=height))
        parts = ", ".join(f"{getattr(day, kind)} {label.lower()}" for kind, label in CHART_STACK)
        columns.append(
            Column(
                x=index * (CHART_BAR_WIDTH + CHART_GAP),
                day=day.day,
                total=day.total,
                title=f"{day.day:%a} {day.day.day} {day.day:%b}: {parts}",
                bars=bars,
            )
        )
    width = len(days) * (CHART_BAR_WIDTH + CHART_GAP) - CHART_GAP
    return Chart(
        width=max(width, 1),
        height=CHART_HEIGHT + CHART_LABEL_SPACE,
        plot_height=CHART_HEIGHT,
        bar_width=CHART_BAR_WIDTH,
        most=most,
        columns=columns,
    )


# --- the audit trail --------------------------------------------------------------------------

RECORD_LABELS = {"candidate": "pair"}  # other kinds are named as the audit trail names them
USER_FIELDS = {"reviewer", "deleted_by", "resolved_by"}
UNIT_FIELDS = {"superseded_by", "unit"}
CONCEPT_FIELDS = {"concept"}
ACTION_LABELS = {
    "candidate.approved": "approved",
    "candidate.rejected": "rejected",
    "candidate.flagged_for_deletion": "flagged for deletion",
}


@dataclass(frozen=True)
class Change:
    record: str
    field: str
    before: str
    after: str


@dataclass(frozen=True)
class EventView:
    event: AuditEvent
    label: str
    is_revert: bool
    reverted_by: AuditEvent | None
    changes: list[Change]

    @property
    def revertible(self) -> bool:
        return not self.is_revert and self.reverted_by is None


def event_views(events: list[AuditEvent]) -> list[EventView]:
    """Audit events as people read them: each changed field before → after, users by name,
    concepts by their taxonomy id as it is now."""
    names = _Names(users=_usernames(events), concepts=_concept_ids(events))
    return [_event_view(event, names) for event in events]


@dataclass(frozen=True)
class _Names:
    users: dict[int, str]
    concepts: dict[int, str]


def _event_view(event: AuditEvent, names: _Names) -> EventView:
    is_revert = event.action.endswith(".revert")
    base = event.action.removesuffix(".revert")
    label = ACTION_LABELS.get(base, base)
    return EventView(
        event=event,
        label=f"reverted “{label}”" if is_revert else label,
        is_revert=is_revert,
        reverted_by=getattr(event, "reverted_by", None),
        changes=_changes(event.before or {}, event.after or {}, names),
    )


def _changes(before: dict, after: dict, names: _Names) -> list[Change]:
    rows = []
    for kind in sorted(set(before) | set(after), key=lambda k: (k != "candidate", k)):
        model = RECORD_KINDS.get(kind)
        old_records, new_records = before.get(kind, {}), after.get(kind, {})
        for pk in sorted(set(old_records) | set(new_records), key=int):
            # A record the change created (or deleted) is null on that side.
            record = f"{RECORD_LABELS.get(kind, kind)} {pk}"
            if old_records.get(pk) is None:
                record += " (created)"
            elif new_records.get(pk) is None:
                record += " (deleted)"
            old, new = old_records.get(pk) or {}, new_records.get(pk) or {}
            for name in [*old, *(n for n in new if n not in old)]:
                if name in old and name in new and old[name] == new[name]:
                    continue  # recorded for a revert's check, but not changed
                field_ = model._meta.get_field(name) if model else None
                rows.append(
                    Change(
                        record=record,
                        field=str(field_.verbose_name) if field_ else name.replace("_", " "),
                        before=_readable(field_, name, old.get(name), names),
                        after=_readable(field_, name, new.get(name), names),
                    )
                )
    return rows


def _readable(field_, name: str, value, names: _Names) -> str:
    if value is None or value == "":
        return "—"
    if field_ is not None and field_.choices:
        return str(dict(field_.flatchoices).get(value, value))
    if name in USER_FIELDS:
        return names.users.get(value, f"user {value}")
    if name in CONCEPT_FIELDS:
        return names.concepts.get(value, f"concept {value}")
    if name in UNIT_FIELDS:
        return f"unit {value}"
    if isinstance(value, str) and "T" in value and (moment := parse_datetime(value)):
        return f"{timezone.localtime(moment):%Y-%m-%d %H:%M}"
    return str(value)


def _field_values(events: list[AuditEvent], fields: set[str]) -> set:
    values = set()
    for event in events:
        for state in (event.before or {}, event.after or {}):
            for records in state.values():
                for record in records.values():
                    record = record or {}  # a created or deleted record is null on one side
                    values.update(record[name] for name in fields if record.get(name))
    return values


def _usernames(events: list[AuditEvent]) -> dict[int, str]:
    users = get_user_model().objects.filter(pk__in=_field_values(events, USER_FIELDS))
    return {user.pk: user.get_username() for user in users}


def _concept_ids(events: list[AuditEvent]) -> dict[int, str]:
    ids = _field_values(events, CONCEPT_FIELDS)
    return dict(Concept.objects.filter(pk__in=ids).values_list("pk", "taxonomy_id"))


# --- a snapshot with a quote marked -----------------------------------------------------------


@dataclass(frozen=True)
class SnapshotReading:
    snapshot: PageSnapshot
    unit: AtomicUnit | None
    before: str
    quote: str
    after: str
    where: str  # "offsets", "found" (the quote is elsewhere in the text), "missing" or ""


def snapshot_reading(snapshot: PageSnapshot, unit: AtomicUnit | None) -> SnapshotReading:
    """The page text cut round the unit's quote: at its recorded offsets when they hold the
    quote, else where the quote first occurs, else not marked (and said so)."""
    text = snapshot.text
    if unit is None:
        return SnapshotReading(snapshot, None, text, "", "", "")
    start, end, where = unit.evidence_start, unit.evidence_end, "offsets"
    if text[start:end] != unit.evidence_quote:
        found = text.find(unit.evidence_quote)
        if found < 0:
            return SnapshotReading(snapshot, unit, text, "", "", "missing")
        start, end, where = found, found + len(unit.evidence_quote), "found"
    return SnapshotReading(snapshot, unit, text[:start], text[start:end], text[end:], where)
