"""Dedup, one statement one unit: the units of one page that share one evidence quote (an
older extraction's one unit per figure) merge into the one stating the figure the sentence is
about, the others' values kept as its figures with their roles; audited and revertible."""

import datetime as dt
from decimal import Decimal

import pytest
from django.core.management import call_command

from curation.models import AuditEvent
from curation.services.dedup import shared_quote_groups, units_dedup
from curation.services.taxonomy import taxonomy_change_revert
from knowledge.models import AtomicUnit, UnitSighting
from tests.factories import ConceptFactory, SnapshotFactory, SourceFactory, UnitFactory

pytestmark = pytest.mark.django_db
HICBC = "The charge is 1% of your Child Benefit for every £200 of income over £60,000."


def _figure_units(quote=HICBC, values=(("1", "percent"), ("200", "GBP"), ("60000", "GBP"))):
    """One unit per figure of one sentence, under two concepts, as extraction once made them."""
    snapshot = SnapshotFactory(
        source=SourceFactory(url="https://www.gov.uk/child-benefit-tax-charge"),
        text=f"High Income Child Benefit Charge\n{quote}\nMore.",
    )
    rate, threshold = ConceptFactory(), ConceptFactory()
    units = []
    for index, (amount, unit) in enumerate(values):
        units.append(
            UnitFactory(
                concept=threshold if amount == "60000" else rate,
                snapshot=snapshot,
                unit_type=AtomicUnit.Type.THRESHOLD,
                evidence_quote=quote if index != 1 else f"  {quote.upper()} ",  # normalised alike
                text=quote,
                value_amount=Decimal(amount),
                value_unit=unit,
            )
        )
    return units, (rate, threshold)


def test_units_sharing_one_quote_merge_into_the_statement_of_its_main_figure(editor):
    (charge, per, above), (rate, threshold) = _figure_units()
    other = UnitFactory(concept=threshold, text="Another rule.")
    assert len(shared_quote_groups()) == 1

    report = units_dedup(user=editor)

    assert [g.kept for g in report.quote_groups] == [charge.pk] and report.units_removed == 2
    charge.refresh_from_db()
    assert charge.deleted_at is None and charge.value_amount == 1
    assert [(f["amount"], f["unit"], f["role"], f["printed"]) for f in charge.figures] == [
        ("200", "GBP", "per", "£200"),
        ("60000", "GBP", "above", "£60,000"),
    ]
    assert not AtomicUnit.objects.alive().filter(pk__in=[per.pk, above.pk]).exists()
    assert AtomicUnit.objects.get(pk=other.pk).ordinal == 1  # the threshold concept renumbered
    assert shared_quote_groups() == []
    assert units_dedup(user=editor).units_removed == 0  # idempotent


def test_a_quote_merge_reverts_exactly(editor):
    units, concepts = _figure_units()
    states = {u.pk: (u.ordinal, u.figures, u.deleted_at) for u in units}
    units_dedup(user=editor)
    event = AuditEvent.objects.get(action="dedup.merge")

    taxonomy_change_revert(event_id=event.pk, user=editor)

    after = {
        u.pk: (u.ordinal, u.figures, u.deleted_at) for u in AtomicUnit.objects.filter(pk__in=states)
    }
    assert after == states
    assert not UnitSighting.objects.exists()


def test_figures_for_different_periods_are_each_quoted_by_their_own_clause(editor):
    quote = "The threshold was £722 up to 7 April 2024 and is £793 from 8 April 2024."
    units, _ = _figure_units(quote, values=(("722", "GBP"), ("793", "GBP")))
    AtomicUnit.objects.filter(pk=units[0].pk).update(valid_to=dt.date(2024, 4, 7))
    AtomicUnit.objects.filter(pk=units[1].pk).update(
        valid_from=dt.date(2024, 4, 8),
        evidence_quote=quote,
        evidence_start=units[0].evidence_start,
        evidence_end=units[0].evidence_end,
        evidence_verified=True,
    )
    fields = ("evidence_quote", "evidence_start", "evidence_end", "deleted_at")
    before = list(AtomicUnit.objects.order_by("pk").values_list(*fields))

    report = units_dedup(user=editor)

    assert report.quotes_narrowed == 1 and report.units_removed == 0
    old, new = AtomicUnit.objects.order_by("pk")
    assert (old.evidence_quote, new.evidence_quote) == (
        "The threshold was £722 up to 7 April 2024",
        "£793 from 8 April 2024.",
    )
    for unit in (old, new):
        text = unit.snapshot.text
        assert text[unit.evidence_start : unit.evidence_end] == unit.evidence_quote
    assert shared_quote_groups() == []

    event = AuditEvent.objects.get(action="dedup.quote_clauses")
    taxonomy_change_revert(event_id=event.pk, user=editor)
    assert list(AtomicUnit.objects.order_by("pk").values_list(*fields)) == before


def test_one_figure_for_two_periods_in_one_quote_is_left_and_counted(editor):
    quote = "You can get up to £6,935 in an academic year."
    units, _ = _figure_units(quote, values=(("6935", "GBP"), ("6935", "GBP")))
    AtomicUnit.objects.filter(pk=units[0].pk).update(valid_from=dt.date(2018, 8, 1))
    AtomicUnit.objects.filter(pk=units[1].pk).update(
        valid_from=dt.date(2024, 8, 1), evidence_quote=quote
    )
    report = units_dedup(user=editor)
    assert report.quotes_left_for_periods == 1 and report.units_removed == 0


def test_the_command_reports_quote_merges(editor, capsys):
    _figure_units()
    call_command("dedup_units", dry_run=True)
    out = capsys.readouterr().out
    assert "one quote:" in out and "1 shared evidence quotes merged" in out
    assert AtomicUnit.objects.alive().count() == 3
    call_command("dedup_units")
    assert AtomicUnit.objects.alive().count() == 1
