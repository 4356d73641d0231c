"""The openai provider's multi-figure unit: a statement's other figures come back with their
roles and are stored with the unit; a malformed figure fails the run, naming it, with nothing
written; the store's own check names what is wrong with a figure."""

from decimal import Decimal

import pytest

from knowledge.models import AtomicUnit
from knowledge.providers import UnitProposal
from knowledge.services.proposals import figures_checked, validate_proposal
from tests.fake_openai import fake_openai_fixture  # noqa: F401
from tests.knowledge.test_llm_openai import (  # noqa: F401 (fixtures)
    assert_nothing_stored,
    context_answer,
    extract,
    extract_fails,
    isa,
    provider,
    snapshot,
    unit,
)

pytestmark = pytest.mark.django_db
BONUS = "if you put £4,000 into a Lifetime ISA the government adds £1,000"
FOUR_THOUSAND = {"amount": 4000, "unit": "GBP", "period": None, "role": "if", "printed": "£4,000"}


def bonus_unit(**figure) -> dict:
    return unit(
        text="If you put £4,000 into a Lifetime ISA the government adds £1,000.",
        evidence_quote=BONUS,
        value_amount=1000,
        value_period=None,
        figures=[FOUR_THOUSAND | figure],
    )


def test_a_statement_s_other_figures_are_stored_with_their_roles(fake_openai, provider, snapshot):  # noqa: F811
    fake_openai.answer(context_answer())
    fake_openai.answer({"units": [bonus_unit(), unit()]})

    extract(snapshot, provider)

    stored = AtomicUnit.objects.get(snapshot=snapshot, value_amount=1000)
    assert stored.figures == [
        {"amount": "4000", "unit": "GBP", "period": "", "role": "if", "printed": "£4,000"}
    ]
    assert AtomicUnit.objects.get(snapshot=snapshot, value_amount=20000).figures == []


@pytest.mark.parametrize(
    ("figure", "named"),
    [
        ({"unit": "USD"}, "units[0].figures[0].unit"),
        ({"role": ""}, "units[0].figures[0].role"),
        ({"amount": "lots"}, "units[0].figures[0].amount"),
    ],
)
def test_a_malformed_figure_fails_the_run_naming_it(fake_openai, provider, snapshot, figure, named):  # noqa: F811
    fake_openai.answer(context_answer())
    fake_openai.answer({"units": [bonus_unit(**figure), unit()]})

    run, _ = extract_fails(snapshot, provider)

    assert named in run.error
    assert_nothing_stored(run)


def test_the_store_checks_each_figure_and_names_what_is_wrong(snapshot):  # noqa: F811
    good = {
        "amount": "200.50",
        "unit": "GBP",
        "period": "week",
        "role": " per ",
        "printed": "£200.50",
    }
    assert figures_checked([good]) == [good | {"amount": "200.5", "role": "per"}]
    for wrong, message in [
        ({"amount": "1e400x"}, "figure 1: amount '1e400x' is not a number"),
        ({"unit": "USD"}, "figure 1: unit 'USD' is not one of GBP"),
        ({"period": "fortnight"}, "figure 1: period 'fortnight' is not one of year"),
        ({"role": ""}, "figure 1: role '' must be a word or two"),
        ({"amount": "1" * 13}, "is not a usable number"),
    ]:
        with pytest.raises(ValueError, match=message):
            figures_checked([good | wrong])
    with pytest.raises(ValueError, match="figure 2 is not an object"):
        figures_checked([good, "£5"])

    proposal = UnitProposal(
        unit_type="threshold",
        text="You can save up to £20,000 in ISAs each tax year.",
        concept_id="isa.annual_allowance",
        evidence_quote="Every tax year you can save up to £20,000",
        value_amount=Decimal(20000),
        value_unit="GBP",
        figures=[good | {"unit": "USD"}],
    )
    checked = validate_proposal(proposal, snapshot=snapshot)
    assert (checked.kind, checked.reason_code) == ("rejected", "bad_figures")
    assert "unit 'USD'" in checked.reason
