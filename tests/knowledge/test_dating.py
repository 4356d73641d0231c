"""A year-bound figure ends with its year: the dating policy on real gov.uk pages (heuristic
provider), the capture date at ingest, and captures that extend a yearly figure."""

import datetime as dt
import json
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from knowledge import govuk
from knowledge.domain.extraction import ValidityBasis
from knowledge.extraction.dating import (
    basis_named,
    capture_year,
    is_yearly_figure,
    names_a_charge,
    unit_confirmed_on,
)
from knowledge.models import AtomicUnit, Concept, PageSnapshot
from knowledge.providers import get_provider
from knowledge.services import extract, ingest
from knowledge.services.taxonomy import taxonomy_load_file
from knowledge.text.dates import hint_years

pytestmark = pytest.mark.django_db
CAPTURED = dt.date(2024, 12, 15)
TAX_2024 = (dt.date(2024, 4, 6), dt.date(2025, 4, 5))


@pytest.fixture
def corpus_kb(corpus_pages):
    """Ingest named corpus page files (captured on `captured_on`) and extract them with the
    heuristic provider; returns the snapshots."""
    taxonomy_load_file()
    pages = govuk.LocalDirectorySource(corpus_pages)

    def build(*names, captured_on=CAPTURED):
        snapshots = []
        for name in names:
            stored = ingest.page_store(document=pages.fetch(name), captured_on=captured_on)
            extract.snapshot_extract(
                snapshot_id=stored.snapshot.pk, provider=get_provider("heuristic")
            )
            snapshots.append(stored.snapshot)
        return snapshots

    return build


def units_valued(amount: str, **filters):
    return list(AtomicUnit.objects.alive().filter(value_amount=Decimal(amount), **filters))


def test_child_benefit_eldest_rate_ends_with_its_tax_year(corpus_kb):
    corpus_kb("child-benefit--what-youll-get--2024-25.json")
    units = units_valued("25.60", concept__taxonomy_id="child_benefit.eldest_weekly")
    assert units
    for unit in units:
        assert (unit.valid_from, unit.valid_to) == TAX_2024
        assert unit.validity_basis in (ValidityBasis.CAPTURE, ValidityBasis.HEADING)


def test_new_state_pension_is_dated_2024_25(corpus_kb):
    corpus_kb("new-state-pension--what-youll-get--2024-25.json")
    units = units_valued("221.20")
    assert units and all((u.valid_from, u.valid_to) == TAX_2024 for u in units)


def test_maternity_allowance_is_dated_by_its_capture_never_its_update(corpus_kb):
    (snapshot,) = corpus_kb("maternity-allowance.json")
    assert snapshot.public_updated_at.year == 2015
    units = units_valued("184.03", concept__taxonomy_id="maternity_allowance.rate")
    assert units
    for unit in units:
        assert (unit.valid_from, unit.valid_to) == TAX_2024
        assert unit.validity_basis == ValidityBasis.CAPTURE


def test_isa_allowance_is_a_threshold_dated_2024_25(corpus_kb):
    corpus_kb("individual-savings-accounts--how-isas-work--2024-25-or-later.json")
    units = units_valued("20000", concept__taxonomy_id="isa.annual_allowance")
    assert units and all(u.unit_type == "threshold" for u in units)
    assert all((u.valid_from, u.valid_to) == TAX_2024 for u in units)


def test_student_finance_figure_takes_the_academic_year(corpus_kb):
    corpus_kb("parents-learning-allowance.json")
    # "in the 2024 to 2025 academic year you could get between £50 and £1,963 a year"
    units = AtomicUnit.objects.alive().filter(
        value_amount__isnull=False, evidence_quote__contains="2024 to 2025 academic year"
    )
    assert units
    for unit in units:
        assert (unit.valid_from, unit.valid_to) == (dt.date(2024, 8, 1), dt.date(2025, 7, 31))
        assert unit.validity_basis == ValidityBasis.STATED


def test_a_figure_not_set_each_year_stays_open_with_the_day_it_was_confirmed(corpus_kb):
    corpus_kb("options-for-dealing-with-your-debts.json", "benefit-cap.json")
    concepts = Concept.objects.filter(yearly_figures=False)
    open_figures = AtomicUnit.objects.alive().filter(
        concept__in=concepts, value_amount__isnull=False, valid_from=None, valid_to=None
    )
    assert open_figures.exists()
    for unit in open_figures:
        assert unit.validity_basis == ValidityBasis.OPEN
        assert unit_confirmed_on(snapshot=unit.snapshot, confirmed_at=unit.confirmed_at) == CAPTURED


# --- two captures of one page ---------------------------------------------------------------

RATE_PAGE = {
    "url": "https://www.gov.uk/child-benefit/what-youll-get",
    "title": "Child Benefit",
    "document_type": "guide",
    "body_text": "What you'll get\n\nEldest or only child: £25.60 a week.\n",
    "body_text_format": "plain text excerpt",
}


def page_file(tmp_path, name, **fields):
    path = tmp_path / name
    path.write_text(json.dumps({**RATE_PAGE, **fields}))
    return path


def test_a_figure_printed_by_two_captures_holds_over_both_years(tmp_path):
    taxonomy_load_file()
    older = govuk.LocalDirectorySource(tmp_path)
    page_file(tmp_path, "a.json", captured_at="2023-11-01")
    stored = ingest.page_store(document=older.fetch("a.json"))
    assert stored.snapshot.captured_on == dt.date(2023, 11, 1)
    extract.snapshot_extract(snapshot_id=stored.snapshot.pk, provider=get_provider("heuristic"))
    (unit,) = units_valued("25.60")
    assert (unit.valid_from, unit.valid_to) == (dt.date(2023, 4, 6), dt.date(2024, 4, 5))

    page_file(tmp_path, "b.json", captured_at="2024-12-15T10:00:00Z")  # the same text
    again = ingest.page_store(document=older.fetch("b.json"))

    assert again.outcome == "unchanged"
    unit.refresh_from_db()
    assert (unit.valid_from, unit.valid_to) == (dt.date(2023, 4, 6), dt.date(2025, 4, 5))


def test_a_newer_capture_that_changed_extends_what_it_still_prints(tmp_path):
    taxonomy_load_file()
    pages = govuk.LocalDirectorySource(tmp_path)
    page_file(tmp_path, "a.json", captured_at="2023-11-01")
    page_file(
        tmp_path,
        "b.json",
        captured_at="2024-12-15",
        body_text=RATE_PAGE["body_text"] + "\nAdditional children: £16.95 a week.\n",
    )
    for name in ("a.json", "b.json"):
        stored = ingest.page_store(document=pages.fetch(name))
        extract.snapshot_extract(snapshot_id=stored.snapshot.pk, provider=get_provider("heuristic"))

    (unit,) = units_valued("25.60")
    assert (unit.valid_from, unit.valid_to) == (dt.date(2023, 4, 6), dt.date(2025, 4, 5))
    assert unit.snapshot.captured_on == dt.date(2024, 12, 15)  # moved onto the newest capture


def test_a_capture_that_no_longer_prints_it_leaves_its_end(tmp_path):
    taxonomy_load_file()
    pages = govuk.LocalDirectorySource(tmp_path)
    page_file(tmp_path, "a.json", captured_at="2023-11-01")
    page_file(tmp_path, "b.json", captured_at="2024-12-15", body_text="Eldest child: £26.05.\n")
    stored = ingest.page_store(document=pages.fetch("a.json"))
    extract.snapshot_extract(snapshot_id=stored.snapshot.pk, provider=get_provider("heuristic"))
    ingest.page_store(document=pages.fetch("b.json"))

    (unit,) = units_valued("25.60")
    assert unit.valid_to == dt.date(2024, 4, 5) and unit.unconfirmed_at is not None


# --- the capture date at ingest -------------------------------------------------------------


def test_ingest_command_stores_the_capture_date_and_a_file_date_wins(tmp_path):
    page_file(tmp_path, "a.json")
    page_file(
        tmp_path,
        "b.json",
        url="https://www.gov.uk/other",
        captured_at="2024-01-20",
    )
    call_command("ingest", from_dir=tmp_path, captured_on="2024-12-15", stdout=StringIO())
    days = dict(PageSnapshot.objects.values_list("source__url", "captured_on"))
    assert days == {
        "https://www.gov.uk/child-benefit/what-youll-get": dt.date(2024, 12, 15),
        "https://www.gov.uk/other": dt.date(2024, 1, 20),
    }


@pytest.mark.parametrize(
    ("value", "said"),
    [("15/12/2024", "not a date"), ("2999-01-01", "in the future")],
)
def test_ingest_refuses_a_bad_capture_date(tmp_path, value, said):
    page_file(tmp_path, "a.json")
    with pytest.raises(CommandError, match=said):
        call_command("ingest", from_dir=tmp_path, captured_on=value, stdout=StringIO())
    assert not PageSnapshot.objects.exists()


def test_a_page_file_with_a_bad_captured_at_is_refused(tmp_path):
    page_file(tmp_path, "a.json", captured_at="last winter")
    with pytest.raises(govuk.FetchError, match="captured_at"):
        govuk.LocalDirectorySource(tmp_path).fetch("a.json")


# --- readers --------------------------------------------------------------------------------


def test_figures_periods_name_closed_years():
    assert hint_years("2024-25") == TAX_2024
    assert hint_years("2017-18-to-2023-24") == (dt.date(2017, 4, 6), dt.date(2024, 4, 5))
    assert hint_years("2024-25-or-later") == TAX_2024
    assert hint_years("2024-25", academic=True) == (dt.date(2024, 8, 1), dt.date(2025, 7, 31))
    assert hint_years("c2017-22") is None


def test_a_figures_period_named_as_the_earliest_gives_way_to_a_later_capture():
    def year(hint, day):
        return capture_year(text="£5,000 a year", period_hint=hint, captured_on=day)

    tax_2021 = (dt.date(2021, 4, 6), dt.date(2022, 4, 5))
    assert year("2021-22-or-later", CAPTURED) == TAX_2024
    assert year("2021-22-or-later", dt.date(2021, 9, 1)) == tax_2021
    assert year("2021-22", CAPTURED) == tax_2021  # a closed year is the figures' own
    assert year("undated", CAPTURED) == TAX_2024


def test_old_basis_strings_read_as_the_four_bases():
    assert basis_named("stated in its section", dated=True) == ValidityBasis.HEADING
    assert basis_named("tax year of the page's last update", dated=True) == ValidityBasis.OPEN
    assert basis_named("", dated=True) == ValidityBasis.STATED
    assert basis_named("", dated=False) == ValidityBasis.OPEN
    assert basis_named("a hunch", dated=False) == ValidityBasis.OPEN


def test_a_list_of_thresholds_one_per_period_is_one_unit_per_period(corpus_kb):
    """'over £60,000 for tax years starting from 2024 to 2025; over £50,000 for tax years up
    to and including 2023 to 2024': two facts, each with its own period, not one list."""
    corpus_kb(
        "government--publications--changes-to-the-high-income-child-benefit-charge--"
        "information-on---2024-25.json"
    )
    new = [u for u in units_valued("60000") if "starting from 2024 to 2025" in u.evidence_quote]
    old = [u for u in units_valued("50000") if "up to and including" in u.evidence_quote]
    assert len(new) == 1 and len(old) == 1
    assert (new[0].valid_from, new[0].valid_to) == (dt.date(2024, 4, 6), None)
    assert old[0].valid_to == dt.date(2024, 4, 5)
    assert new[0].temporal_status_on(dt.date(2026, 12, 1)) == "current"


def test_a_rule_about_a_period_that_ends_ends_with_it(corpus_kb):
    corpus_kb("how-to-have-your-benefits-paid.json")
    christmas = [u for u in AtomicUnit.objects.alive() if "2 January 2025" in u.evidence_quote]
    assert christmas
    for unit in christmas:
        assert unit.valid_to == dt.date(2025, 1, 2)
        assert unit.validity_basis == ValidityBasis.STATED


def test_a_standing_limit_seen_in_a_page_files_year_is_not_known_before_it(corpus_kb):
    """A money figure of a concept not set each year stays open-ended, but from the year its
    page file says its figures were seen in: nothing is known of it before."""
    corpus_kb("capital-gains-tax--allowances--2024-25-or-later.json")
    units = [u for u in units_valued("3000") if not u.concept.yearly_figures]
    for unit in units:
        assert unit.valid_to is None and unit.valid_from == dt.date(2024, 4, 6)
        assert unit.temporal_status_on(dt.date(2022, 10, 1)) == "upcoming"


def test_a_fine_is_not_a_yearly_figure_whatever_its_concept():
    """A £50 fine filed under a concept of weekly rates is set until changed, not uprated:
    it stays open; the rate beside it does not."""
    rates = Concept(taxonomy_id="esa.rates", name="ESA weekly rates", yearly_figures=True)
    fine = "If you give wrong information you might have to pay a £50 fine."

    assert not is_yearly_figure(rates, Decimal(50), "GBP", [], fine)
    assert is_yearly_figure(rates, Decimal("90.50"), "GBP", [], "You'll get up to £90.50 a week.")
    assert names_a_charge("You could get a penalty of up to £300.", Decimal(300))
    assert not names_a_charge("You could get a penalty of up to £3,000.", Decimal(300))
    assert not names_a_charge("Tuition fees are up to £9,250 a year.", Decimal(9250))
