"""The context handed to a language model, assembled from hand-built hits (unsaved model
instances) and priced by the embedding model's own tokenizer, one line at a time."""

import datetime as dt

import pytest

from knowledge.embeddings import count_tokens
from knowledge.models import AtomicUnit, Concept
from knowledge.retrieval.context import assemble_context
from knowledge.retrieval.hits import ConceptHit, UnitHit

DAY = dt.date(2025, 6, 1)
RATES = "https://www.gov.uk/income-tax-rates"
ALLOWANCES = "https://www.gov.uk/income-tax-rates/allowances"
ISA = "https://www.gov.uk/individual-savings-accounts"


def _unit(text: str, url: str, *, status: str = "current", valid_from=None, valid_to=None):
    unit = AtomicUnit(text=text, valid_from=valid_from, valid_to=valid_to)
    return UnitHit(unit=unit, similarity=0.8, temporal_status=status, part_url=url)


def _hit(name: str, taxonomy_id: str, units: list[UnitHit]) -> ConceptHit:
    return ConceptHit(
        concept=Concept(name=name, taxonomy_id=taxonomy_id),
        score=0.8,
        concept_similarity=0.8,
        unit_similarity=0.8,
        text_rank=0.0,
        below_quality=False,
        units=units,
    )


def _cost(lines: list[str]) -> int:
    return sum(count_tokens(line) + 1 for line in lines)  # a newline after each


def _two_concepts() -> list[ConceptHit]:
    return [
        _hit(
            "Income Tax rates",
            "income_tax.rates",
            [
                _unit("The basic rate is 20%.", RATES),
                _unit("The Personal Allowance is £12,570.", ALLOWANCES),
                _unit("The higher rate is 40%.", RATES),
            ],
        ),
        _hit(
            "ISA allowance",
            "savings.isa_allowance",
            [
                _unit("You can save up to £20,000 a year in ISAs.", ISA),
            ],
        ),
    ]


TWO_CONCEPTS_LINES = [
    "## Income Tax rates [income_tax.rates]",
    f"Source: {RATES}",
    "- The basic rate is 20%.",
    "- The higher rate is 40%.",
    f"Source: {ALLOWANCES}",
    "- The Personal Allowance is £12,570.",
    "## ISA allowance [savings.isa_allowance]",
    f"Source: {ISA}",
    "- You can save up to £20,000 a year in ISAs.",
]


def test_concepts_in_rank_order_with_their_units_grouped_by_part_in_order_of_first_mention():
    context, used = assemble_context(_two_concepts(), budget=10_000, day=DAY)

    assert context.split("\n") == TWO_CONCEPTS_LINES
    assert used == _cost(TWO_CONCEPTS_LINES)


def test_a_concept_without_units_to_show_adds_nothing():
    hits = [_hit("Empty", "tax.empty", []), *_two_concepts(), _hit("Empty", "tax.empty_too", [])]

    context, used = assemble_context(hits, budget=10_000, day=DAY)

    assert context.split("\n") == TWO_CONCEPTS_LINES
    assert used == _cost(TWO_CONCEPTS_LINES)


def test_nothing_to_show_is_an_empty_context_of_no_tokens():
    assert assemble_context([], budget=10_000, day=DAY) == ("", 0)


# --- the budget -------------------------------------------------------------------------------


def test_a_budget_that_fits_every_line_exactly_keeps_them_all():
    budget = _cost(TWO_CONCEPTS_LINES)

    context, used = assemble_context(_two_concepts(), budget=budget, day=DAY)

    assert context.split("\n") == TWO_CONCEPTS_LINES and used == budget


def test_one_token_short_drops_the_whole_last_line():
    budget = _cost(TWO_CONCEPTS_LINES) - 1

    context, used = assemble_context(_two_concepts(), budget=budget, day=DAY)

    assert context.split("\n") == TWO_CONCEPTS_LINES[:-1]
    assert used == _cost(TWO_CONCEPTS_LINES[:-1])


def test_any_budget_keeps_the_longest_run_of_first_lines_that_fits():
    for budget in range(_cost(TWO_CONCEPTS_LINES) + 2):
        fitting = max(
            n for n in range(len(TWO_CONCEPTS_LINES) + 1) if _cost(TWO_CONCEPTS_LINES[:n]) <= budget
        )

        context, used = assemble_context(_two_concepts(), budget=budget, day=DAY)

        assert context == "\n".join(TWO_CONCEPTS_LINES[:fitting]), budget
        assert used == _cost(TWO_CONCEPTS_LINES[:fitting]) <= budget


def test_a_tight_budget_keeps_the_best_concept_first():
    first = TWO_CONCEPTS_LINES[:6]

    context, _ = assemble_context(_two_concepts(), budget=_cost(first), day=DAY)

    assert context.split("\n") == first


def test_the_cut_is_final_even_when_a_later_line_would_fit():
    long_text = " ".join(["allowance"] * 40)
    hits = [
        _hit(
            "Income Tax rates",
            "income_tax.rates",
            [
                _unit(long_text, RATES),
                _unit("Short.", RATES),
            ],
        ),
    ]
    kept = ["## Income Tax rates [income_tax.rates]", f"Source: {RATES}"]
    budget = _cost(kept) + _cost(["- Short."])  # room for the short line, not the long one

    context, used = assemble_context(hits, budget=budget, day=DAY)

    assert context.split("\n") == kept and used == _cost(kept)


def test_a_budget_below_the_first_line_gives_an_empty_context():
    header = TWO_CONCEPTS_LINES[0]

    assert assemble_context(_two_concepts(), budget=_cost([header]) - 1, day=DAY) == ("", 0)


# --- validity and the day ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("valid_from", "valid_to", "line"),
    [
        (None, None, "- The rate is 20%."),
        (
            dt.date(2024, 4, 6),
            dt.date(2025, 4, 5),
            "- The rate is 20%. (valid 2024-04-06 to 2025-04-05)",
        ),
        (dt.date(2024, 4, 6), None, "- The rate is 20%. (valid 2024-04-06 to now)"),
        (None, dt.date(2025, 4, 5), "- The rate is 20%. (valid … to 2025-04-05)"),
    ],
)
def test_a_unit_line_shows_its_validity_dates(valid_from, valid_to, line):
    unit = _unit("The rate is 20%.", RATES, valid_from=valid_from, valid_to=valid_to)

    context, _ = assemble_context([_hit("Rates", "tax.rates", [unit])], budget=1000, day=DAY)

    assert context.split("\n")[2] == line


def _units_of_each_status() -> list[ConceptHit]:
    return [
        _hit(
            "Rates",
            "tax.rates",
            [
                _unit("Now 20%.", RATES, valid_from=dt.date(2025, 4, 6)),
                _unit("Was 22%.", RATES, status="historical", valid_to=dt.date(2025, 4, 5)),
                _unit("Will be 19%.", RATES, status="upcoming", valid_from=dt.date(2026, 4, 6)),
            ],
        ),
    ]


def test_units_not_current_on_the_day_are_kept_and_marked_with_their_status_and_the_day():
    context, _ = assemble_context(_units_of_each_status(), budget=1000, day=DAY)

    assert context.split("\n")[2:] == [
        "- Now 20%. (valid 2025-04-06 to now)",
        "- Was 22%. (valid … to 2025-04-05) [historical on 2025-06-01]",
        "- Will be 19%. (valid 2026-04-06 to now) [upcoming on 2025-06-01]",
    ]


def test_the_day_only_dates_the_marks_the_hits_carry():
    """The status is the hit's, decided when it was loaded: the day names it, and a unit
    whose hit says current gets no mark, whatever its dates."""
    other_day = dt.date(2030, 1, 1)

    context, _ = assemble_context(_units_of_each_status(), budget=1000, day=other_day)

    assert context.split("\n")[2:] == [
        "- Now 20%. (valid 2025-04-06 to now)",
        "- Was 22%. (valid … to 2025-04-05) [historical on 2030-01-01]",
        "- Will be 19%. (valid 2026-04-06 to now) [upcoming on 2030-01-01]",
    ]
    current_only, _ = assemble_context(_two_concepts(), budget=10_000, day=other_day)
    assert current_only.split("\n") == TWO_CONCEPTS_LINES


def test_an_outdated_unit_is_given_as_the_newest_figure_held_for_the_period_that_ended():
    outdated = _unit(
        "The eldest child rate is £25.60 a week.",
        RATES,
        status="outdated",
        valid_from=dt.date(2024, 4, 6),
        valid_to=dt.date(2025, 4, 5),
    )
    context, _ = assemble_context(
        [_hit("Child Benefit rates", "child_benefit.rates", [outdated])],
        budget=500,
        day=dt.date(2026, 12, 1),
    )
    assert context.splitlines()[-1] == (
        "- The eldest child rate is £25.60 a week. (newest figure held: "
        "for 6 April 2024 to 5 April 2025; ended 5 April 2025)"
    )
