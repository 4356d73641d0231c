"""Dedup job: near-identical units of one concept merge into one, which keeps every other
page that states it in `also_found_in` (UnitSighting).

Near-identical is the superseding detector's stage-1 rule: texts alike above
SUPERSEDING_DUPLICATE_SIMILARITY and stating the same figures and dates, plus the same type,
structured value and validity. "£12,500" and "£12,570" never merge. The unit kept is the one
with verified evidence from the latest version of its page; the others leave the knowledge
base (soft-deleted, kept for audit), the concept's ordinals are renumbered, and each merge
writes an audit event that reverts it exactly. Units in a superseding chain are left alone.

One statement is one unit: live units of one page that share one evidence quote (an older
extraction made one unit per figure of "1% … for every £200 … over £60,000") merge into the
one whose value is the figure the statement is about, whatever concepts they were filed
under; the others' figures join its `figures` with their roles. Units of one quote stating
different periods ("£722 up to 7 April 2024 and £793 from 8 April 2024") are different facts:
each is quoted by its own clause, or table cell with its row's label (audited, revertible);
a quote no clause tells apart is left, counted, for the page to be extracted again.

Kept whole: both merges (near-identical units, and units of one quote) share the choice of
the unit kept, the audit event that reverts them and the renumbering.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from curation.services.audit import audit_record, state_of, states_of
from curation.services.locks import concepts_lock
from knowledge.extraction.figures import figures_in, main_figure, period_clauses
from knowledge.models import AtomicUnit, Concept, UnitSighting
from knowledge.services.ingest import snapshot_recency
from knowledge.services.units import concept_ordinals_renumber
from knowledge.text.amounts import amount_text, find_amounts
from knowledge.text.compare import near_identical
from knowledge.text.normalise import normalise_inline

REMOVAL_FIELDS = ("deleted_at", "deleted_by", "ordinal")
SIGHTING_FIELDS = ("unit", "source", "snapshot", "evidence_quote")
EVIDENCE_FIELDS = ("evidence_quote", "evidence_start", "evidence_end")


@dataclass
class MergedGroup:
    concept: str
    kept: int
    removed: list[int]
    sources: list[str]
    text: str


@dataclass
class DedupReport:
    concepts_checked: int = 0
    units_checked: int = 0
    groups: list[MergedGroup] = field(default_factory=list)
    skipped_in_chains: int = 0
    quote_groups: list[MergedGroup] = field(default_factory=list)  # one quote, one unit
    quotes_narrowed: int = 0  # quotes of figures for different periods, each now its clause's
    quotes_left_for_periods: int = 0  # such quotes no clause tells apart
    left_for_experts: int = 0  # groups holding two experts' corrections: theirs to join

    @property
    def units_removed(self) -> int:
        return sum(len(group.removed) for group in [*self.groups, *self.quote_groups])


def units_dedup(
    *,
    concept_id: int | None = None,
    user=None,
    dry_run: bool = False,
    progress: Callable[[int], None] = lambda done: None,
) -> DedupReport:
    """Merge near-identical units concept by concept (one transaction each). Idempotent."""
    threshold = settings.SUPERSEDING_DUPLICATE_SIMILARITY
    concepts = Concept.objects.order_by("taxonomy_id")
    if concept_id is not None:
        concepts = concepts.filter(pk=concept_id)
    report = DedupReport()
    with transaction.atomic():  # one quote, one unit (first: the near-identical texts of
        # one statement's units then merge as one unit)
        _shared_quotes_merge(concept_id=concept_id, user=user, report=report)
        if dry_run:
            transaction.set_rollback(True)
    for concept in concepts:
        with transaction.atomic():
            _concept_dedup(concept, threshold=threshold, user=user, report=report)
            if dry_run:
                transaction.set_rollback(True)
        progress(1)
    return report


def _concept_dedup(concept: Concept, *, threshold: float, user, report: DedupReport) -> None:
    concepts_lock([concept.pk])  # its units are removed and renumbered
    in_chain = AtomicUnit.objects.filter(superseded_by=OuterRef("pk"))
    units = list(
        AtomicUnit.objects.alive()
        .filter(concept=concept)
        .annotate(replaces=Exists(in_chain))
        .select_related("source", "snapshot")
        .defer("snapshot__raw", "snapshot__text", "embedding")
        .select_for_update(of=("self",))
        .order_by("pk")
    )
    report.concepts_checked += 1
    report.units_checked += len(units)
    free = [unit for unit in units if unit.superseded_by_id is None and not unit.replaces]
    report.skipped_in_chains += len(units) - len(free)
    for group in _duplicate_groups(free, threshold=threshold):
        if _corrections_in(group) > 1:
            report.left_for_experts += 1
            continue
        report.groups.append(_merge(concept, group, user=user))


def _duplicate_groups(units: list[AtomicUnit], *, threshold: float) -> list[list[AtomicUnit]]:
    """Connected groups of near-identical units (a duplicate of a duplicate joins the group)."""
    parent = {unit.pk: unit.pk for unit in units}

    def root(pk: int) -> int:
        while parent[pk] != pk:
            parent[pk] = parent[parent[pk]]
            pk = parent[pk]
        return pk

    for index, a in enumerate(units):
        for b in units[index + 1 :]:
            if _same_statement(a, b) and near_identical(a.text, b.text, threshold=threshold):
                parent[root(b.pk)] = root(a.pk)
    groups: dict[int, list[AtomicUnit]] = {}
    for unit in units:
        groups.setdefault(root(unit.pk), []).append(unit)
    return [group for group in groups.values() if len(group) > 1]


def _same_statement(a: AtomicUnit, b: AtomicUnit) -> bool:
    return (
        a.unit_type == b.unit_type
        and a.value_amount == b.value_amount
        and a.value_unit == b.value_unit
        and a.value_period == b.value_period
        and a.valid_from == b.valid_from
        and a.valid_to == b.valid_to
    )


def _corrections_in(group: list[AtomicUnit]) -> int:
    return sum(unit.corrected_at is not None for unit in group)


def _reviewed(unit: AtomicUnit) -> tuple[bool, bool]:
    """Which unit a merge keeps, as the expert left it: a corrected one, else a signed-off one."""
    return unit.corrected_at is not None, unit.review_status == AtomicUnit.ReviewStatus.APPROVED


def _keeper(group: list[AtomicUnit]) -> AtomicUnit:
    return max(
        group,
        key=lambda u: (_reviewed(u), u.evidence_verified, snapshot_recency(u.snapshot), -u.pk),
    )


def _merge(concept: Concept, group: list[AtomicUnit], *, user) -> MergedGroup:
    kept = _keeper(group)
    removed = [unit for unit in group if unit.pk != kept.pk]
    siblings = AtomicUnit.objects.alive().filter(concept=concept)
    before_units = states_of(siblings, REMOVAL_FIELDS)
    sightings = _sightings_add(kept, removed)
    now = timezone.now()
    for unit in removed:
        unit.deleted_at, unit.deleted_by, unit.ordinal = now, user, None
        unit.save(update_fields=["deleted_at", "deleted_by", "ordinal", "updated_at"])
    renumbered = concept_ordinals_renumber(concept_id=concept.pk)
    touched = AtomicUnit.objects.filter(pk__in=[*(u.pk for u in removed), *renumbered])
    after_units = states_of(touched, REMOVAL_FIELDS)
    sources = sorted({kept.source.url, *(u.source.url for u in removed)})
    audit_record(
        actor=user,
        action="dedup.merge",
        target=kept,
        summary=f"Merged {len(removed)} duplicate(s) into unit {kept.pk} ({len(sources)} page(s))",
        before={
            "unit": {pk: before_units[pk] for pk in after_units},
            "sighting": {str(s.pk): None for s in sightings},
        },
        after={"unit": after_units, "sighting": states_of(sightings, SIGHTING_FIELDS)},
    )
    return MergedGroup(concept.taxonomy_id, kept.pk, [u.pk for u in removed], sources, kept.text)


def _sightings_add(kept: AtomicUnit, removed: list[AtomicUnit]) -> list[UnitSighting]:
    """Every other page of the group, once each, with the quote it was found by."""
    seen = {kept.source_id, *kept.sightings.values_list("source_id", flat=True)}
    found = [(u.source_id, u.snapshot_id, u.evidence_quote) for u in removed]
    for sighting in UnitSighting.objects.filter(unit__in=removed):  # earlier merges' pages
        found.append((sighting.source_id, sighting.snapshot_id, sighting.evidence_quote))
    added = []
    for source_id, snapshot_id, quote in found:
        if source_id in seen:
            continue
        seen.add(source_id)
        added.append(
            UnitSighting.objects.create(
                unit=kept, source_id=source_id, snapshot_id=snapshot_id, evidence_quote=quote
            )
        )
    return added


def _free_units():
    """Live units in no superseding chain (a chain's units are its editors' to merge)."""
    in_chain = AtomicUnit.objects.filter(superseded_by=OuterRef("pk"))
    return (
        AtomicUnit.objects.alive()
        .filter(superseded_by__isnull=True)
        .exclude(Exists(in_chain))
        .select_related("source", "snapshot", "concept")
        .defer("snapshot__raw", "snapshot__text", "embedding")
    )


def shared_quote_groups(units=None) -> list[list[AtomicUnit]]:
    """Live units of one page sharing one evidence quote (whitespace, quote marks and case
    aside), each group in id order."""
    groups: dict[tuple, list[AtomicUnit]] = defaultdict(list)
    for unit in (units if units is not None else _free_units()).order_by("pk"):
        groups[(unit.source_id, normalise_inline(unit.evidence_quote).lower())].append(unit)
    return [group for group in groups.values() if len(group) > 1]


def _shared_quotes_merge(*, concept_id: int | None, user, report: DedupReport) -> None:
    units = _free_units()
    if concept_id is not None:
        pages = AtomicUnit.objects.alive().filter(concept_id=concept_id).values("source_id")
        units = units.filter(source_id__in=pages)
    for group in shared_quote_groups(units):
        if concept_id is not None and all(u.concept_id != concept_id for u in group):
            continue
        if _corrections_in(group) > 1:
            report.left_for_experts += 1
            continue
        # the periods its figures are stated for (an open unit beside a dated one is an
        # older extraction's dating, not another period)
        valued = [u for u in group if u.value_amount is not None and (u.valid_from or u.valid_to)]
        if len({(u.valid_from, u.valid_to) for u in valued}) < 2:
            report.quote_groups.append(_quote_merge(group, user=user))
        elif _clauses_quote(group, user=user, report=report):
            report.quotes_narrowed += 1
        else:
            report.quotes_left_for_periods += 1


def _own_clause(unit: AtomicUnit) -> tuple[int, int] | None:
    """Where in its quote a unit's figure is stated for its period: a table row up to the
    figure's cell (the row's label kept), or the clause of a sentence stating figures for
    different periods ("£793 from 8 April 2024"); None when the quote does not say."""
    quote = unit.evidence_quote

    def states(amount) -> bool:
        return (amount.value, amount.unit) == (unit.value_amount, unit.value_unit)

    cells = quote.split("; ")
    if len(cells) > 1:
        at = next((i for i, cell in enumerate(cells) if any(map(states, find_amounts(cell)))), None)
        return None if at is None else (0, len("; ".join(cells[: at + 1])))
    amounts = find_amounts(quote)
    for first, last in period_clauses(quote, amounts):
        if any(states(a) for a in amounts if first <= a.start < last):
            return first, last
    return None


def _clauses_quote(group: list[AtomicUnit], *, user, report: DedupReport) -> bool:
    """Units of one quote stating figures for different periods are different facts: each is
    quoted by its own clause or cell (audited), when that makes every period's quote its own;
    units then sharing a quote and a period merge. False, changing nothing, otherwise."""
    spans = {u.pk: _own_clause(u) for u in group if u.value_amount is not None}
    if None in spans.values() or not all(u.evidence_verified for u in group):
        return False
    if _corrections_in(group):  # an expert chose that quote
        return False
    quoted: dict[str, set] = defaultdict(set)
    for unit in group:
        first, last = spans.get(unit.pk, (0, len(unit.evidence_quote)))
        quoted[normalise_inline(unit.evidence_quote[first:last]).lower()].add(
            (unit.valid_from, unit.valid_to)
        )
    if any(len(periods) > 1 for periods in quoted.values()):
        return False
    narrowed = [u for u in group if u.pk in spans and spans[u.pk] != (0, len(u.evidence_quote))]
    before = states_of(narrowed, EVIDENCE_FIELDS)
    for unit in narrowed:
        first, last = spans[unit.pk]
        clause = unit.evidence_quote[first:last]
        first += len(clause) - len(clause.lstrip())
        unit.evidence_quote = clause.strip()
        unit.evidence_start += first
        unit.evidence_end = unit.evidence_start + len(unit.evidence_quote)
        unit.save(update_fields=[*EVIDENCE_FIELDS, "updated_at"])
    audit_record(
        actor=user,
        action="dedup.quote_clauses",
        target=narrowed[0],
        summary=(
            f"Quoted {len(narrowed)} unit(s) of {narrowed[0].source.url} by their own clause: "
            "one quote stated figures for different periods"
        ),
        before={"unit": before},
        after={"unit": states_of(narrowed, EVIDENCE_FIELDS)},
    )
    for same in shared_quote_groups(AtomicUnit.objects.filter(pk__in=[u.pk for u in group])):
        report.quote_groups.append(_quote_merge(same, user=user))
    return True


def _statement_keeper(group: list[AtomicUnit]) -> AtomicUnit:
    """The unit whose value is the figure its quote is about (the rate charged, not what it
    is charged per), else one with a value, then as `_keeper` chooses."""
    figures = figures_in(group[0].evidence_quote)
    main = figures[main_figure(figures)].amount if figures else None

    def states_main(unit: AtomicUnit) -> bool:
        return main is not None and (unit.value_amount, unit.value_unit) == (main.value, main.unit)

    return max(
        group,
        key=lambda u: (
            _reviewed(u),
            states_main(u),
            u.value_amount is not None,
            u.evidence_verified,
            snapshot_recency(u.snapshot),
            -u.pk,
        ),
    )


def _merged_figures(kept: AtomicUnit, removed: list[AtomicUnit]) -> list[dict]:
    """The kept unit's figures and, once each, the removed units' values and figures, each
    with the role its quote gives it ("per", "above", …; "also" when none)."""
    roles = {(f.amount.value, f.amount.unit): f.role for f in figures_in(kept.evidence_quote)}
    figures = list(kept.figures)
    seen = {(kept.value_amount, kept.value_unit)} | {
        (Decimal(f["amount"]), f["unit"]) for f in figures
    }
    for unit in removed:
        stated = (
            [
                {
                    "amount": f"{unit.value_amount.normalize():f}",
                    "unit": unit.value_unit,
                    "period": unit.value_period,
                    "role": roles.get((unit.value_amount, unit.value_unit)) or "also",
                    "printed": amount_text(unit.value_amount, unit.value_unit),
                }
            ]
            if unit.value_amount is not None
            else []
        )
        for figure in [*stated, *unit.figures]:
            key = (Decimal(figure["amount"]), figure["unit"])
            if key not in seen:
                seen.add(key)
                figures.append(figure)
    return figures


def _quote_merge(group: list[AtomicUnit], *, user) -> MergedGroup:
    kept = _statement_keeper(group)
    removed = [unit for unit in group if unit.pk != kept.pk]
    concepts = sorted({unit.concept_id for unit in group})
    concepts_lock(concepts)
    siblings = AtomicUnit.objects.alive().filter(concept_id__in=concepts)
    before_units = states_of(siblings, REMOVAL_FIELDS)
    before_kept = state_of(kept, ["figures"])
    sightings = _sightings_add(kept, removed)
    now = timezone.now()
    for unit in removed:
        unit.deleted_at, unit.deleted_by, unit.ordinal = now, user, None
        unit.save(update_fields=["deleted_at", "deleted_by", "ordinal", "updated_at"])
    if kept.corrected_at is None:  # an expert's figures stand as they left them
        kept.figures = _merged_figures(kept, removed)
        kept.save(update_fields=["figures", "updated_at"])
    renumbered = [
        pk for concept in concepts for pk in concept_ordinals_renumber(concept_id=concept)
    ]
    touched = AtomicUnit.objects.filter(pk__in=[*(u.pk for u in removed), *renumbered])
    after_units = states_of(touched, REMOVAL_FIELDS)
    before = {pk: before_units[pk] for pk in after_units}
    key = next(iter(states_of([kept], ["figures"])))  # the audit's key for the kept unit
    before[key] = {**before.get(key, {}), **before_kept}
    after_units[key] = {**after_units.get(key, {}), **state_of(kept, ["figures"])}
    audit_record(
        actor=user,
        action="dedup.merge",
        target=kept,
        summary=(
            f"Merged {len(removed)} unit(s) quoting the same statement of {kept.source.url} "
            f"into unit {kept.pk}, their figures kept"
        ),
        before={"unit": before, "sighting": {str(s.pk): None for s in sightings}},
        after={"unit": after_units, "sighting": states_of(sightings, SIGHTING_FIELDS)},
    )
    return MergedGroup(
        kept.concept.taxonomy_id, kept.pk, [u.pk for u in removed], [kept.source.url], kept.text
    )
