"""Evaluation: threshold scoring on a small synthetic gold file and units from the factories,
and the reading of the gold and question files."""

import datetime as dt
import json
from decimal import Decimal
from pathlib import Path

import pytest
import yaml
from django.core.management import CommandError, call_command

from evaluation.retrieval import QuestionFileError, load_questions
from evaluation.thresholds import (
    CATEGORY_SLUGS,
    PAGE_FILE_PERIOD,
    GoldFormatError,
    gold_load,
    targets_build,
    threshold_recall,
)
from knowledge.models import AtomicUnit, Category
from tests.factories import CategoryFactory, ConceptFactory, UnitFactory

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
SHARED_GOLD = ROOT.parent / "shared" / "eval" / "gold_thresholds_dev.json"
D = dt.date


def _value(value, valid_from, valid_to=None, date_basis="as_in_source"):
    return {
        "value": value,
        "valid_from": valid_from,
        "valid_to": valid_to,
        "tax_year": valid_from[:4],
        "date_basis": date_basis,
    }


def _match(value, valid_from, printed, printed_as="as stated", period_consistent=True):
    return {
        "value": value,
        "valid_from": valid_from,
        "tax_year": valid_from[:4],
        "printed": printed,
        "printed_as": printed_as,
        "slug": "some-page",
        "url": "https://www.gov.uk/some-page",
        "context": printed,
        "period_source": "page period",
        "period_consistent": period_consistent,
    }


def _fact(fact_id, category, unit, values, matches):
    return {
        "fact_id": fact_id,
        "label": fact_id,
        "category": category,
        "unit": unit,
        "jurisdiction": "UK",
        "values": values,
        "references": [],
        "source": "test",
        "corpus_matches": matches,
    }


def _gold(tmp_path, *facts) -> Path:
    path = tmp_path / "gold.json"
    path.write_text(json.dumps(list(facts)))
    return path


PERSONAL_ALLOWANCE = _fact(
    "income_tax.personal_allowance",
    "Income Tax",
    "GBP/year",
    [
        _value(12500, "2019-04-06", "2021-04-05"),
        _value(12570, "2021-04-06"),
    ],
    [_match(12570, "2021-04-06", "£12,570")],
)


QUESTION = {
    "id": "dev-001",
    "question": "What was the weekly Child Benefit rate for the eldest child in 2014-15?",
    "answerable": True,
    "category": "Child Benefit & HICBC",
    "kind": "temporal",
    "as_of": "2014-10-01",
    "gold": [{"slug": "cb", "url": "https://www.gov.uk/child-benefit", "span": "£20.50"}],
    "answer_key": "£20.50 a week",
}


def _concept(slug):
    category = Category.objects.filter(slug=slug).first() or CategoryFactory(slug=slug)
    return ConceptFactory(category=category)


def _threshold(slug, amount, value_unit="GBP", period="year", valid_from=None, valid_to=None, **kw):
    kw.setdefault("unit_type", AtomicUnit.Type.THRESHOLD)
    return UnitFactory(
        concept=_concept(slug),
        value_amount=Decimal(str(amount)),
        value_unit=value_unit,
        value_period=period,
        valid_from=valid_from,
        valid_to=valid_to,
        **kw,
    )


def _recall(tmp_path, *facts):
    return threshold_recall(gold_path=_gold(tmp_path, *facts))


def test_correct_unit_counts(tmp_path):
    _threshold("income_tax", 12570, valid_from=D(2024, 4, 6), valid_to=D(2025, 4, 5))
    report = _recall(tmp_path, PERSONAL_ALLOWANCE)
    assert (report.recall.found, report.recall.total) == (1, 1)
    assert report.misses == () and report.dating_errors == ()


def test_only_printed_values_are_scored(tmp_path):
    inconsistent = _fact(
        "ni.class2_weekly_rate",
        "National Insurance",
        "GBP/week",
        [_value(3.45, "2023-04-06", "2024-04-05")],
        [_match(3.45, "2023-04-06", "£3.45", period_consistent=False)],
    )
    report = _recall(tmp_path, PERSONAL_ALLOWANCE, inconsistent)
    assert report.recall.total == 1  # 12500 has no corpus match, 3.45 is inconsistent


def test_wrong_amount_does_not_count(tmp_path):
    _threshold("income_tax", 12500, valid_from=D(2024, 4, 6), valid_to=D(2025, 4, 5))
    report = _recall(tmp_path, PERSONAL_ALLOWANCE)
    assert report.recall.found == 0
    assert [(m.kind, m.reason) for m in report.misses] == [
        ("no_amount", "no threshold unit with that amount")
    ]


def test_non_threshold_or_deleted_unit_does_not_count(tmp_path):
    dates = {"valid_from": D(2024, 4, 6), "valid_to": D(2025, 4, 5)}
    _threshold("income_tax", 12570, unit_type=AtomicUnit.Type.RULE, **dates)
    deleted = _threshold("income_tax", 12570, **dates)
    AtomicUnit.objects.filter(pk=deleted.pk).update(
        deleted_at=dt.datetime.now(dt.UTC), ordinal=None
    )
    assert _recall(tmp_path, PERSONAL_ALLOWANCE).recall.found == 0


def test_amount_under_another_category_is_named(tmp_path):
    CategoryFactory(slug="savings_tax", name="Tax on Savings & Investments")
    _threshold("savings_tax", 12570, valid_from=D(2024, 4, 6), valid_to=D(2025, 4, 5))
    (miss,) = _recall(tmp_path, PERSONAL_ALLOWANCE).misses
    assert miss.kind == "other_category"
    assert "Tax on Savings & Investments" in miss.reason


def test_open_ended_unit_for_an_ended_value_is_a_dating_error(tmp_path):
    pension = _fact(
        "pensions.new_state_pension_full_weekly",
        "Pensions",
        "GBP/week",
        [_value(164.35, "2018-04-09", "2019-04-07"), _value(168.6, "2019-04-08")],
        [_match(164.35, "2018-04-09", "£164.35")],
    )
    unit = _threshold("state_pension", "164.35", period="week", valid_from=D(2018, 4, 6))
    report = _recall(tmp_path, pension)
    assert report.recall.found == 0
    (error,) = report.dating_errors
    assert error.fact_id == "pensions.new_state_pension_full_weekly"
    assert [(u.unit_id, u.valid_from, u.valid_to) for u in error.units] == [
        (unit.pk, D(2018, 4, 6), None)
    ]
    assert report.misses[0].kind == "dating_error"


def test_uprating_week_start_is_compared_by_tax_year(tmp_path):
    # 2018-04-09 is the benefit uprating week, not a mid-year change: a unit dated to the
    # 2018-19 tax year fits (the README's State Pension example).
    pension = _fact(
        "pensions.new_state_pension_full_weekly",
        "Pensions",
        "GBP/week",
        [
            _value(159.55, "2017-04-10", "2018-04-08"),
            _value(164.35, "2018-04-09", "2019-04-07"),
            _value(168.6, "2019-04-08"),
        ],
        [_match(164.35, "2018-04-09", "£164.35")],
    )
    _threshold("state_pension", "164.35", "GBP", "week", D(2018, 4, 6), D(2019, 4, 5))
    assert _recall(tmp_path, pension).recall.found == 1


def test_superseded_date_closes_an_open_unit(tmp_path):
    pension = _fact(
        "pensions.new_state_pension_full_weekly",
        "Pensions",
        "GBP/week",
        [_value(164.35, "2018-04-09", "2019-04-07"), _value(168.6, "2019-04-08")],
        [_match(164.35, "2018-04-09", "£164.35")],
    )
    old = _threshold("state_pension", "164.35", period="week", valid_from=D(2018, 4, 6))
    new = _threshold("state_pension", "168.60", period="week", valid_from=D(2019, 4, 8))
    AtomicUnit.objects.filter(pk=old.pk).update(superseded_by=new, superseded_date=D(2019, 4, 8))
    assert _recall(tmp_path, pension).recall.found == 1


def test_in_force_earlier_accepts_an_earlier_start(tmp_path):
    def rate(date_basis):
        return _fact(
            "income_tax.basic_rate",
            "Income Tax",
            "rate",
            [_value(0.2, "2015-04-06", None, date_basis)],
            [_match(0.2, "2015-04-06", "20%", "percent")],
        )

    _threshold("income_tax", 20, "percent", "", valid_from=D(2010, 4, 6))
    assert _recall(tmp_path, rate("in_force_earlier")).recall.found == 1
    report = _recall(tmp_path, rate("as_in_source"))
    assert report.recall.found == 0 and len(report.dating_errors) == 1


def test_in_force_earlier_accepts_no_start(tmp_path):
    fact = _fact(
        "iht.rate",
        "Inheritance Tax",
        "rate",
        [_value(0.4, "2015-04-06", None, "in_force_earlier")],
        [_match(0.4, "2015-04-06", "40%", "percent")],
    )
    _threshold("iht", 40, "percent", "")
    assert _recall(tmp_path, fact).recall.found == 1


PLAN_1 = _fact(
    "student_loan.plan_1_threshold",
    "Student loans",
    "GBP/year",
    [_value(20195, "2022-04-06", "2023-04-05")],
    [
        _match(20195, "2022-04-06", "£388", "annual / 52, rounded down"),
        _match(20195, "2022-04-06", "£1,682", "annual / 12, rounded down"),
    ],
)


@pytest.mark.parametrize(
    ("amount", "period", "found"),
    [(388, "week", 1), (388, "month", 0), (388, "year", 0), (1682, "month", 1), (20195, "", 1)],
)
def test_printed_weekly_and_monthly_forms_need_their_period(tmp_path, amount, period, found):
    _threshold("student_finance", amount, "GBP", period, D(2022, 4, 6), D(2023, 4, 5))
    assert _recall(tmp_path, PLAN_1).recall.found == found


DIVIDEND_RATE = _fact(
    "income_tax.dividend_ordinary_rate",
    "Income Tax",
    "rate",
    [_value(0.0875, "2022-04-06", "2026-04-05")],
    [_match(0.0875, "2022-04-06", "8.75%", "percent")],
)


@pytest.mark.parametrize(
    ("amount", "value_unit", "found"),
    [("8.75", "percent", 1), ("8.7", "percent", 0), ("0.0875", "GBP", 0), ("8.75", "GBP", 0)],
)
def test_a_rate_needs_a_percent_unit(tmp_path, amount, value_unit, found):
    _threshold("income_tax", amount, value_unit, "", D(2024, 4, 6), D(2025, 4, 5))
    assert _recall(tmp_path, DIVIDEND_RATE).recall.found == found


def test_pence_per_pound_counts_as_a_gbp_amount(tmp_path):
    taper = _fact(
        "uc.taper_rate",
        "Benefits",
        "rate",
        [_value(0.55, "2021-11-24")],
        [_match(0.55, "2021-11-24", "55p", "pence per £1")],
    )
    _threshold("benefits_low_income", "0.55", "GBP", "", D(2024, 4, 6), D(2025, 4, 5))
    assert _recall(tmp_path, taper).recall.found == 1


def _wage(fact_id):
    # One value only: under tax years, 1 April boundaries between values would be mid-year.
    return _fact(
        fact_id,
        "Minimum wage",
        "GBP/hour",
        [_value(8.6, "2024-04-01", "2025-03-31")],
        [_match(8.6, "2024-04-01", "£8.60", "rates table, row 'April 2024', column '18 to 20'")],
    )


def test_minimum_wage_uses_the_rate_year(tmp_path):
    _threshold("income_tax", "8.60", "GBP", "hour", D(2024, 4, 6), D(2025, 4, 5))
    # 2025-04-05 is in the 2025 rate year (from 1 April) but still in the 2024-25 tax year.
    wage = _recall(tmp_path, _wage("minimum_wage.age_18_20"))
    assert wage.recall.found == 0 and len(wage.dating_errors) == 1
    assert _recall(tmp_path, _wage("income_tax.some_hourly_rate")).recall.found == 1


def test_minimum_wage_unit_dated_by_rate_year_counts(tmp_path):
    _threshold("income_tax", "8.60", "GBP", "hour", D(2024, 4, 1), D(2025, 3, 31))
    assert _recall(tmp_path, _wage("minimum_wage.age_18_20")).recall.found == 1


CGT_BASIC_RATE = _fact(
    "cgt.basic_rate",
    "Capital Gains Tax",
    "rate",
    [_value(0.1, "2016-04-06", "2024-10-29"), _value(0.18, "2024-10-30")],
    [
        _match(0.1, "2016-04-06", "10%", "percent"),
        _match(0.18, "2024-10-30", "18%", "percent"),
    ],
)


@pytest.mark.parametrize(
    ("amount", "valid_from", "valid_to", "found"),
    [
        (18, D(2024, 10, 30), None, 1),
        (18, D(2024, 4, 6), None, 0),  # same tax year, but before the change
        (10, D(2024, 4, 6), D(2024, 10, 29), 1),
        (10, D(2024, 4, 6), D(2025, 4, 5), 0),  # same tax year, but past the change
    ],
)
def test_mid_year_change_compares_exact_dates(tmp_path, amount, valid_from, valid_to, found):
    _threshold("cgt", amount, "percent", "", valid_from, valid_to)
    report = _recall(tmp_path, CGT_BASIC_RATE)
    assert report.recall.found == found
    assert len(report.dating_errors) == 1 - found


ISA = _fact(
    "isa.annual_allowance",
    "ISAs & Junior ISAs",
    "GBP/year",
    [_value(15240, "2015-04-06", "2017-04-05"), _value(20000, "2017-04-06")],
    [_match(15240, "2015-04-06", "£15,240"), _match(20000, "2017-04-06", "£20,000")],
)


@pytest.mark.parametrize(
    ("linked", "superseded_date", "marked"),
    [(False, None, False), (True, D(2016, 4, 6), False), (True, D(2017, 4, 6), True)],
)
def test_chain_is_marked_only_with_a_link_in_the_newer_year(
    tmp_path, linked, superseded_date, marked
):
    old = _threshold("isa", 15240, valid_from=D(2015, 4, 6))
    new = _threshold("isa", 20000, valid_from=D(2017, 4, 6))
    if linked:
        AtomicUnit.objects.filter(pk=old.pk).update(
            superseded_by=new, superseded_date=superseded_date
        )
    report = _recall(tmp_path, ISA)
    (chain,) = report.chains
    assert (chain.older_value, chain.newer_value) == (15240, 20000)
    assert chain.marked is marked
    assert (report.chains_checked, report.chains_marked) == (1, int(marked))


def test_chain_link_to_another_fact_unit_is_not_marked(tmp_path):
    old = _threshold("isa", 15240, valid_from=D(2015, 4, 6))
    _threshold("isa", 20000, valid_from=D(2017, 4, 6))
    other = _threshold("isa", 9000, valid_from=D(2017, 4, 6))
    AtomicUnit.objects.filter(pk=old.pk).update(superseded_by=other, superseded_date=D(2017, 4, 6))
    assert _recall(tmp_path, ISA).chains_marked == 0


def test_recall_without_page_file_periods(tmp_path):
    _threshold(
        "income_tax",
        12570,
        valid_from=D(2024, 4, 6),
        valid_to=D(2025, 4, 5),
        validity_basis=PAGE_FILE_PERIOD,
    )
    report = _recall(tmp_path, PERSONAL_ALLOWANCE)
    assert report.recall.found == 1
    assert report.recall_without_page_file_periods.found == 0


def test_per_category_recall(tmp_path):
    _threshold("income_tax", 12570, valid_from=D(2024, 4, 6), valid_to=D(2025, 4, 5))
    report = _recall(tmp_path, PERSONAL_ALLOWANCE, ISA)
    assert {c.category: (c.recall.found, c.recall.total) for c in report.categories} == {
        "Income Tax": (1, 1),
        "ISAs & Junior ISAs": (0, 2),
    }


def test_gold_category_without_mapping_raises(tmp_path):
    unknown = dict(PERSONAL_ALLOWANCE, category="Council Tax")
    with pytest.raises(ValueError, match="Council Tax"):
        _recall(tmp_path, unknown)


def test_malformed_gold_names_the_field(tmp_path):
    broken = dict(PERSONAL_ALLOWANCE, values=[{"value": 12570, "valid_from": "6 April 2021"}])
    with pytest.raises(GoldFormatError, match=r"values\[0\]\.valid_from: "):
        gold_load(path=_gold(tmp_path, broken))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"unit": "EUR"}, r"fact 0 \(income_tax.personal_allowance\): unit: expected 'rate'"),
        ({"fact_id": 5}, r"fact 0: fact_id: must be a string, got 5"),
        ({"values": [{"value": True, "valid_from": "2021-04-06"}]}, r"values\[0\]\.value: "),
        (
            {"corpus_matches": [_match(12570, "2021-04-06", "about 12k")]},
            r"corpus_matches\[0\]: printed: cannot read 'about 12k'",
        ),
        (
            {"corpus_matches": [_match(12570, "2021-04-06", "£12,570", printed_as="odd")]},
            r"corpus_matches\[0\]: printed_as: unknown form 'odd'",
        ),
        (
            {"corpus_matches": [_match(12571, "2021-04-06", "£12,571")]},
            r"corpus_matches\[0\]: value/valid_from name no dated value",
        ),
    ],
)
def test_malformed_gold_names_the_fact_and_the_field(tmp_path, change, message):
    with pytest.raises(GoldFormatError, match=message):
        gold_load(path=_gold(tmp_path, dict(PERSONAL_ALLOWANCE, **change)))


def test_gold_that_is_not_a_json_list_is_refused(tmp_path):
    path = tmp_path / "gold.json"
    path.write_text("{not json")
    with pytest.raises(GoldFormatError, match="not valid JSON"):
        gold_load(path=path)
    path.write_text('{"fact_id": "x"}')
    with pytest.raises(GoldFormatError, match="expected a JSON list of facts"):
        gold_load(path=path)


def test_question_file_is_read_into_typed_questions(tmp_path):
    path = tmp_path / "questions.jsonl"
    path.write_text(json.dumps(QUESTION) + "\n\n" + json.dumps(dict(QUESTION, as_of=None)) + "\n")
    first, second = load_questions(path)
    assert (first.id, first.answerable, first.as_of) == ("dev-001", True, D(2014, 10, 1))
    assert first.gold[0].part_url is None and second.as_of is None


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "line 2: not valid JSON"),
        (json.dumps({"id": "dev-002"}), "line 2: question: missing"),
        (json.dumps(dict(QUESTION, answerable="yes")), "line 2: answerable: Input should be a "),
        (
            json.dumps(dict(QUESTION, gold=[{"url": "https://www.gov.uk/x"}])),
            "line 2: gold[0].span: missing",
        ),
        (json.dumps(dict(QUESTION, as_of="October 2014")), "line 2: as_of: "),
    ],
)
def test_malformed_question_line_names_the_line_and_the_field(tmp_path, line, message):
    path = tmp_path / "questions.jsonl"
    path.write_text(json.dumps(QUESTION) + "\n" + line + "\n")
    with pytest.raises(QuestionFileError) as failed:
        load_questions(path)
    assert str(failed.value).startswith(message)


def test_shared_question_file_parses():
    path = SHARED_GOLD.parent / "dev_questions.jsonl"
    if not path.is_file():
        pytest.skip(f"shared questions not found ({path})")
    questions = load_questions(path)
    assert len(questions) == 175
    assert sum(q.answerable for q in questions) == 128


def test_command_prints_report_and_json(tmp_path, capsys):
    _threshold("income_tax", 12570, valid_from=D(2024, 4, 6), valid_to=D(2025, 4, 5))
    gold = _gold(tmp_path, PERSONAL_ALLOWANCE, ISA)
    call_command("eval_thresholds", "--gold", str(gold))
    assert "Value recall: 1/3 (33.3%)" in capsys.readouterr().out
    call_command("eval_thresholds", "--gold", str(gold), "--json")
    data = json.loads(capsys.readouterr().out)
    assert data["recall"] == {"found": 1, "total": 3, "share": pytest.approx(1 / 3)}
    assert data["chains_checked"] == 1


def test_command_rejects_missing_or_malformed_gold(tmp_path):
    with pytest.raises(CommandError, match="not found"):
        call_command("eval_thresholds", "--gold", str(tmp_path / "absent.json"))
    broken = dict(PERSONAL_ALLOWANCE)
    del broken["category"]
    with pytest.raises(CommandError, match="category: missing"):
        call_command("eval_thresholds", "--gold", str(_gold(tmp_path, broken)))


def test_mapping_slugs_exist_in_the_taxonomy():
    taxonomy = yaml.safe_load((ROOT / "fixtures" / "taxonomy.yaml").read_text())
    slugs = {category["slug"] for category in taxonomy["categories"]}
    assert set().union(*CATEGORY_SLUGS.values()) <= slugs


def test_shared_gold_parses_and_every_category_is_mapped():
    if not SHARED_GOLD.is_file():
        pytest.skip(f"shared gold not found ({SHARED_GOLD})")
    targets = targets_build(facts=gold_load(path=SHARED_GOLD))
    assert len(targets) == 63  # dated values with a period-consistent corpus match
    by_value = {(t.fact.fact_id, t.value.value): t for t in targets}
    assert by_value["cgt.basic_rate", Decimal("0.18")].start_exact  # from 30 October 2024
    assert by_value["cgt.basic_rate", Decimal("0.1")].end_exact
    pension = by_value["pensions.new_state_pension_full_weekly", Decimal("164.35")]
    assert not (pension.start_exact or pension.end_exact)  # uprating week: tax years
    wage = by_value["minimum_wage.age_18_20", Decimal("8.6")]
    assert not (wage.start_exact or wage.end_exact)  # 1 April starts the rate year
