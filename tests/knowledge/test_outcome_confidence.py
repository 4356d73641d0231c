"""The search's confidence: what a question asks for, the signals read from hand-built hits,
the logistic model and its file, and the ok/refuse decision weighed by a model a test builds."""

import datetime as dt
import json
import math
from decimal import Decimal

import pytest

from knowledge.models import AtomicUnit, Category, Concept
from knowledge.retrieval import outcome
from knowledge.retrieval.confidence import (
    SIGNALS,
    OutcomeModel,
    asks_for,
    outcome_model,
    outcome_signals,
)
from knowledge.retrieval.hits import ConceptHit, TopicFacts, UnitHit
from knowledge.retrieval.outcome import decide_outcome, typed_outcome
from knowledge.retrieval.search import SearchParams

D = dt.date
DAY = D(2025, 6, 1)  # in the 2025-26 tax year
SCOPE = {"scope": 0.3}


def _concept(name: str) -> Concept:
    return Concept(name=name, category=Category(name="Tax", slug="tax"))


def _unit(text: str, *, kind: str = "rule", amount=None, valid_from=None, valid_to=None):
    return AtomicUnit(
        unit_type=kind,
        text=text,
        value_amount=None if amount is None else Decimal(amount),
        valid_from=valid_from,
        valid_to=valid_to,
    )


def _seen(unit: AtomicUnit, *, similarity: float = 0.8, status: str = "current") -> UnitHit:
    return UnitHit(unit, similarity, status, "https://www.gov.uk/page")


def _hit(concept: Concept, *units: UnitHit, score: float = 0.7, below=False) -> ConceptHit:
    for seen in units:
        seen.unit.concept = concept  # a unit found under a concept is that concept's
    return ConceptHit(
        concept=concept,
        score=score,
        concept_similarity=0.7,
        unit_similarity=max((u.similarity for u in units), default=0.0),
        text_rank=0.0,
        below_quality=below,
        units=list(units),
    )


def _signals(question: str, hits, *, topic=None, rows=((1, 0.8),), dated=False, reasons=()):
    return outcome_signals(
        question=question,
        hits=hits,
        topic=topic,
        concept_rows=list(rows),
        day=DAY,
        dated=dated,
        rule_reasons=list(reasons),
    )


# --- what a question asks for ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("How much can I earn before I pay income tax?", "amount"),
        ("HOW MUCH is Child Benefit for a second child", "amount"),
        ("What's the VAT registration threshold?", "amount"),
        ("Is there a £ figure for the trading exemption", "amount"),
        ("What was the full new State Pension per week in 2019?", "amount"),
        ("What's the monthly Universal Credit standard allowance for a couple?", "amount"),
        ("When must I send my tax return?", "date"),
        ("By what date do I have to register a company?", "date"),
        ("How long do I keep my business records?", "date"),
        ("How do I register for Self Assessment?", "procedure"),
        ("Where do I send a P45?", "procedure"),
        ("how to appeal against a decision", "procedure"),
        ("Can I get Carer's Credit while working?", "eligibility"),
        ("Am I eligible for Tax-Free Childcare?", "eligibility"),
        ("Who can claim Working Tax Credit", "eligibility"),
        ("What is a P60?", "definition"),
        ("What does domicile mean for inheritance tax?", "definition"),
        ("Tell me about inheritance tax on gifts", "other"),
    ],
)
def test_asks_for_reads_the_kind_from_the_question_form(question, kind):
    assert asks_for(question) == kind


# --- the signals ----------------------------------------------------------------------------


def test_signals_are_the_named_set_each_between_0_and_1():
    allowance = _concept("Personal Allowance")
    unit = _unit("The Personal Allowance is £12,570", kind="threshold", amount="12570")
    topic = TopicFacts(concept=allowance, unit_count=3, thresholds=[unit])

    signals = _signals(
        "How much is the Personal Allowance?", [_hit(allowance, _seen(unit))], topic=topic
    )

    assert set(signals) == set(SIGNALS)
    assert all(0.0 <= value <= 1.0 for value in signals.values())
    assert signals["topic_has_facts"] == signals["topic_has_amount"] == 1.0
    assert signals["asks_amount"] == 1.0 and signals["kind_found"] == 1.0


def test_states_asked_is_how_surely_a_shown_unit_states_what_is_asked():
    # The served aboutness reading, the question read as a claim without figures: a unit of
    # the quantity asked about reads as more about it than one of another scheme's.
    isa = _concept("ISA allowance")
    allowance = _unit("Every tax year you can put up to £20,000 into ISAs.", kind="threshold")
    lisa = _concept("Lifetime ISA bonus")
    bonus = _unit("The government adds a 25% bonus to your Lifetime ISA savings.", kind="rule")
    question = "How much can I put into my ISAs each tax year?"

    stated = _signals(question, [_hit(isa, _seen(allowance, similarity=0.7))])
    other = _signals(question, [_hit(lisa, _seen(bonus, similarity=0.7))])

    assert stated["states_asked"] > other["states_asked"]
    assert _signals(question, [], rows=())["states_asked"] == 0.0


def test_nothing_found_gives_no_evidence():
    signals = _signals("How much is the Personal Allowance?", [], rows=())

    assert signals["topic_similarity"] == signals["top_score"] == 0.0
    assert signals["unit_similarity"] == signals["in_force"] == 0.0
    assert signals["kind_found"] == signals["answer_terms"] == signals["terms_covered"] == 0.0
    assert signals["topic_has_facts"] == signals["topic_has_amount"] == 0.0


def test_similarities_come_from_the_nearest_concept_and_the_best_concepts_units():
    concept = _concept("Marriage Allowance")
    hits = [
        _hit(
            concept,
            _seen(_unit("a"), similarity=0.61),
            _seen(_unit("b"), similarity=0.74),
            score=0.66,
        ),
        _hit(_concept("Other"), _seen(_unit("c"), similarity=0.99), score=0.5),
    ]

    signals = _signals("Tell me about Marriage Allowance", hits, rows=[(7, 0.812345), (8, 0.7)])

    assert signals["topic_similarity"] == 0.8123
    assert signals["top_score"] == 0.66
    assert signals["unit_similarity"] == 0.74  # the best concept's, not the other's 0.99


def test_answer_terms_needs_one_unit_of_the_kind_asked_for_to_hold_the_words():
    """Every word of the question is somewhere in the units found (terms covered), but the
    one threshold holds only some of them: the detail asked about is in a rule, not a figure."""
    allowance = _concept("Personal Allowance")
    figure = _unit("The rate is £12,570 a year", kind="threshold", amount="12570")
    blind = _unit("Blind people may get a further allowance", kind="rule")
    hits = [_hit(allowance, _seen(figure), _seen(blind))]

    signals = _signals("Personal Allowance rate for blind people", hits)

    assert signals["terms_covered"] == 1.0
    # personal, allowance (the concept's name) and rate of personal/allowance/rate/blind/people
    assert signals["answer_terms"] == 0.6


def test_answer_terms_takes_the_best_single_unit_not_the_union():
    concept = _concept("Relief")
    hits = [
        _hit(
            concept,
            _seen(_unit("Trading income limit is £1,000", kind="threshold", amount="1000")),
            _seen(_unit("Property income limit is £1,000", kind="threshold", amount="1000")),
        )
    ]

    signals = _signals("Trading and property income limit", hits)

    assert signals["answer_terms"] == 0.75  # each unit holds three of the four words
    assert signals["terms_covered"] == 1.0  # the two together hold all four


def test_a_word_naming_the_kind_asked_for_is_held_by_a_unit_of_that_kind():
    """The question "HICBC threshold" is answered by a figure that never says "threshold"; a rule about
    the charge does not answer the word."""
    eligibility = _concept("Who can get Child Benefit")
    figure = _unit(
        "You may have to pay the High Income Child Benefit Charge if your income is over £60,000.",
        kind="threshold",
        amount="60000",
    )
    rule = _unit("You pay the High Income Child Benefit Charge through Self Assessment.")

    found = _signals("HICBC threshold", [_hit(eligibility, _seen(figure))])
    rule_only = _signals("HICBC threshold", [_hit(eligibility, _seen(rule))])

    assert found["answer_terms"] == found["terms_covered"] == 1.0
    assert rule_only["answer_terms"] == 0.0  # no unit of the kind asked for
    assert rule_only["terms_covered"] == 0.5  # the charge, spelled out; no figure for "threshold"


def test_kind_found_needs_a_unit_of_the_kind_within_the_best_concepts():
    wage = _concept("National Minimum Wage")
    only_rules = [_hit(wage, _seen(_unit("Employers must pay at least the minimum wage")))]
    undated_threshold = [_hit(wage, _seen(_unit("There is a rate", kind="threshold")))]
    fourth = [_hit(_concept(f"C{n}"), _seen(_unit("rule"))) for n in range(3)] + [
        _hit(wage, _seen(_unit("£12.21 an hour", kind="threshold", amount="12.21")))
    ]
    with_amount = fourth[3:] + fourth[:3]
    question = "How much is the minimum wage?"

    assert _signals(question, only_rules)["kind_found"] == 0.0
    assert _signals(question, undated_threshold)["kind_found"] == 0.0  # no amount in it
    assert _signals(question, fourth)["kind_found"] == 0.0  # only the top three concepts count
    assert _signals(question, with_amount)["kind_found"] == 1.0
    assert _signals("Tell me about employers' duties", only_rules)["kind_found"] == 1.0


def test_designators_held_needs_a_unit_naming_the_variant_asked_about():
    loans = _concept("Student loan repayment threshold")
    plan_1 = _seen(
        _unit("Plan 1: the threshold is £1,682 a month", kind="threshold", amount="1682")
    )
    plans = _seen(_unit("You repay 9% over the threshold for plans 1, 2 and 4", kind="rule"))
    plan_4_example = _seen(
        _unit("Your income is over the Plan 4 threshold of £2,273", kind="example")
    )
    question = "What's the repayment threshold for a Plan 4 student loan?"

    assert _signals(question, [_hit(loans, plan_1, plans)])["designators_held"] == 0.0
    # a worked example states the variant's figure, so it counts
    assert _signals(question, [_hit(loans, plan_1, plan_4_example)])["designators_held"] == 1.0
    assert (
        _signals("What's the student loan threshold?", [_hit(loans, plan_1)])["designators_held"]
        == 1.0
    )
    # Class 1A is not Class 1
    ni = [
        _hit(
            _concept("NI"),
            _seen(_unit("Class 1 contributions are 8%", kind="threshold", amount="8")),
        )
    ]
    assert _signals("What is the Class 1A rate?", ni)["designators_held"] == 0.0


def test_kind_found_for_a_procedure_question_accepts_procedures_and_rules_only():
    concept = _concept("Self Assessment")
    definition = [_hit(concept, _seen(_unit("A return is a form", kind="definition")))]
    procedure = [_hit(concept, _seen(_unit("Register online", kind="procedure")))]
    question = "How do I register for Self Assessment?"

    assert _signals(question, definition)["kind_found"] == 0.0
    assert _signals(question, procedure)["kind_found"] == 1.0


def test_in_force_is_the_share_of_the_best_concepts_units_current_on_the_day():
    hits = [
        _hit(
            _concept("Rates"),
            _seen(_unit("a"), status="current"),
            _seen(_unit("b"), status="historical"),
            _seen(_unit("c"), status="upcoming"),
            _seen(_unit("d"), status="current"),
        ),
        _hit(_concept("Other"), _seen(_unit("e"), status="historical")),
    ]

    assert _signals("Tell me about rates", hits)["in_force"] == 0.5


def test_amount_of_the_year_needs_a_figure_stated_for_the_day_asked_about():
    """A figure from 2024-25 carried forward without an end is in force and dated by the day
    (`amount_dated_on_day`) but is not stated for 2025-26 (`amount_of_the_year`)."""
    wage = _concept("Minimum wage")
    carried = _unit("£11.44", kind="threshold", amount="11.44", valid_from=D(2024, 4, 6))
    this_year = _unit("£12.21", kind="threshold", amount="12.21", valid_from=D(2025, 4, 6))
    spanning = _unit(
        "£11.44", kind="threshold", amount="11.44", valid_from=D(2024, 4, 6), valid_to=D(2026, 4, 5)
    )
    question = "How much is the minimum wage in 2025?"

    old = _signals(question, [_hit(wage, _seen(carried))], dated=True)
    assert old["amount_of_the_year"] == 0.0
    assert old["amount_dated_on_day"] == 1.0
    assert old["date_named"] == 1.0
    assert (
        _signals(question, [_hit(wage, _seen(this_year))], dated=True)["amount_of_the_year"] == 1.0
    )
    assert (
        _signals(question, [_hit(wage, _seen(spanning))], dated=True)["amount_of_the_year"] == 1.0
    )
    # Not about a given day, or not an amount question: nothing to hold the figure to.
    assert (
        _signals(question, [_hit(wage, _seen(carried))], dated=False)["amount_of_the_year"] == 1.0
    )
    assert (
        _signals("Who decides what employers must pay?", [_hit(wage, _seen(carried))], dated=True)[
            "amount_of_the_year"
        ]
        == 1.0
    )


def test_amount_dated_on_day_refuses_undated_later_or_lapsed_figures():
    wage = _concept("Minimum wage")
    question = "How much is the minimum wage?"
    undated = _unit("£12.21", kind="threshold", amount="12.21")
    later = _unit("£12.71", kind="threshold", amount="12.71", valid_from=D(2026, 4, 6))
    lapsed = _unit("£10.42", kind="threshold", amount="10.42", valid_from=D(2023, 4, 6))

    assert _signals(question, [_hit(wage, _seen(undated))])["amount_dated_on_day"] == 0.0
    assert (
        _signals(question, [_hit(wage, _seen(later, status="upcoming"))])["amount_dated_on_day"]
        == 0.0
    )
    assert (
        _signals(question, [_hit(wage, _seen(lapsed, status="historical"))])["amount_dated_on_day"]
        == 0.0
    )
    assert (
        _signals("When do employers have to pay?", [_hit(wage, _seen(undated))])[
            "amount_dated_on_day"
        ]
        == 1.0
    )


@pytest.mark.parametrize(
    ("question", "other"),
    [
        ("How much is the US standard deduction?", 1.0),
        ("Do Irish citizens pay National Insurance?", 1.0),
        ("Is my pension of €2,000 taxed?", 1.0),
        ("What is the German church tax?", 1.0),
        ("Do I pay tax on a bonus?", 0.0),  # "us" inside a word, lower case
        ("How much is the Personal Allowance?", 0.0),
        ("Can I claim the Marriage Allowance thus?", 0.0),
    ],
)
def test_other_country_flags_questions_about_another_countrys_system(question, other):
    assert _signals(question, [])["other_country"] == other


@pytest.mark.parametrize(
    "question",
    [
        "How much is the Personal Allowance in Northern Ireland?",
        "Can I apply to the EU Settlement Scheme?",
    ],
)
def test_uk_questions_naming_ireland_or_the_eu_are_not_about_another_country(question):
    assert _signals(question, [])["other_country"] == 0.0


def test_rules_refuse_says_whether_the_typed_rules_gave_a_reason():
    assert _signals("Tell me", [], reasons=["out_of_scope"])["rules_refuse"] == 1.0
    assert _signals("Tell me", [], reasons=[])["rules_refuse"] == 0.0


# --- the model ------------------------------------------------------------------------------


def test_confidence_is_the_logistic_of_the_weighted_signals():
    model = OutcomeModel(
        weights={"top_score": 2.0, "other_country": -3.0}, bias=-1.0, threshold=0.5, fitted={}
    )

    # z = -1 + 2*1 - 3*0 = 1; a signal without a weight counts for nothing.
    assert model.confidence({"top_score": 1.0, "other_country": 0.0, "asks_amount": 1.0}) == round(
        1 / (1 + math.exp(-1)), 4
    )
    assert model.confidence({"top_score": 1.0, "other_country": 1.0}) == round(
        1 / (1 + math.exp(2)), 4
    )
    # A weighted signal missing from the search counts as 0: z = bias.
    assert model.confidence({}) == 0.2689
    assert OutcomeModel({}, 0.0, 0.5, {}).confidence({"top_score": 1.0}) == 0.5


def _model_file(tmp_path, **data):
    path = tmp_path / "model.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_outcome_model_reads_its_file(tmp_path):
    path = _model_file(tmp_path, weights={"top_score": 1.5}, bias=-0.5, threshold=0.6)

    model = outcome_model.__wrapped__(path)

    assert model == OutcomeModel({"top_score": 1.5}, -0.5, 0.6, {})
    assert model.as_json()["threshold"] == 0.6


def test_outcome_model_without_a_file_is_none(tmp_path):
    assert outcome_model.__wrapped__(tmp_path / "absent.json") is None


def test_outcome_model_names_signals_it_does_not_know(tmp_path):
    path = _model_file(
        tmp_path, weights={"top_score": 1.0, "moon_phase": 0.3}, bias=0.0, threshold=0.5
    )

    with pytest.raises(ValueError, match="moon_phase"):
        outcome_model.__wrapped__(path)


def test_the_committed_model_reads_and_uses_known_signals_only():
    model = outcome_model()

    assert model is not None
    assert set(model.weights) <= set(SIGNALS)
    assert 0.0 < model.threshold < 1.0


# --- the decision ---------------------------------------------------------------------------


def _use_model(monkeypatch, model):
    monkeypatch.setattr(outcome, "outcome_model", lambda: model)


# The typed rules give a reason to refuse: the model then (and only then) lacks confidence.
RULES_DECIDE = OutcomeModel({"rules_refuse": -10.0}, bias=5.0, threshold=0.5, fitted={})
ALWAYS_SURE = OutcomeModel({}, bias=5.0, threshold=0.5, fitted={})
NEVER_SURE = OutcomeModel({}, bias=-5.0, threshold=0.5, fitted={})


def _search(question="Can I get Carer's Credit?", *, similarity=0.8, below=False, topic_units=3):
    concept = _concept("Carer's Credit")
    hits = [_hit(concept, _seen(_unit("You can get Carer's Credit if you care")), below=below)]
    return dict(
        params=SearchParams(query=question),
        hits=hits,
        topic=TopicFacts(concept=concept, unit_count=topic_units, thresholds=[]),
        concept_rows=[(1, similarity)],
        thresholds=SCOPE,
        day=DAY,
    )


def test_a_confident_search_answers_ok_without_reasons(monkeypatch):
    _use_model(monkeypatch, RULES_DECIDE)
    search = _search()

    decision = decide_outcome(**search)

    assert (decision.outcome, decision.reasons) == ("ok", [])
    assert decision.confidence == RULES_DECIDE.confidence(decision.signals) > 0.99
    assert decision.signals["rules_refuse"] == 0.0


def test_confidence_at_the_threshold_answers_ok(monkeypatch):
    _use_model(monkeypatch, OutcomeModel({}, bias=0.0, threshold=0.5, fitted={}))

    decision = decide_outcome(**_search())

    assert (decision.outcome, decision.confidence) == ("ok", 0.5)


def test_confidence_overrides_a_rule_that_would_refuse(monkeypatch):
    _use_model(monkeypatch, ALWAYS_SURE)
    search = _search(similarity=0.1)  # below the scope: the typed rules say out_of_scope
    assert typed_outcome(**search) == ("no_match", ["out_of_scope"])

    decision = decide_outcome(**search)

    assert (decision.outcome, decision.reasons) == ("ok", [])


def test_nothing_near_the_question_is_refused_however_confident(monkeypatch):
    _use_model(monkeypatch, ALWAYS_SURE)
    search = _search() | {"concept_rows": []}  # no concept above the floor at all

    decision = decide_outcome(**search)

    assert (decision.outcome, decision.reasons) == ("no_match", ["out_of_scope"])
    assert decision.confidence > 0.99  # reported, but it cannot make an unknown topic known


def test_not_confident_refuses_with_the_rules_absence_reason_as_no_match(monkeypatch):
    _use_model(monkeypatch, RULES_DECIDE)

    decision = decide_outcome(**_search(similarity=0.1))

    assert (decision.outcome, decision.reasons) == ("no_match", ["out_of_scope"])
    assert decision.confidence < 0.01
    assert decision.signals["rules_refuse"] == 1.0


def test_not_confident_refuses_with_the_rules_doubt_as_low_confidence(monkeypatch):
    _use_model(monkeypatch, RULES_DECIDE)
    search = _search("How much is Carer's Credit worth?")  # the topic holds no threshold
    assert typed_outcome(**search) == ("low_confidence", ["no_amount_in_kb"])

    decision = decide_outcome(**search)

    assert (decision.outcome, decision.reasons) == ("low_confidence", ["no_amount_in_kb"])


def test_not_confident_without_a_rule_refuses_as_not_confident(monkeypatch):
    _use_model(monkeypatch, NEVER_SURE)
    search = _search()
    assert typed_outcome(**search) == ("ok", [])

    decision = decide_outcome(**search)

    assert (decision.outcome, decision.reasons) == ("low_confidence", ["not_confident"])
    assert decision.confidence == 0.0067


def test_facts_all_below_quality_stay_low_confidence_however_confident(monkeypatch):
    _use_model(monkeypatch, ALWAYS_SURE)

    decision = decide_outcome(**_search(below=True))

    assert (decision.outcome, decision.reasons) == ("low_confidence", ["below_quality"])
    assert decision.confidence > 0.99


def test_without_a_model_the_typed_rules_decide_alone(monkeypatch):
    _use_model(monkeypatch, None)
    refused, answered = _search(similarity=0.1), _search()

    no_match = decide_outcome(**refused)
    ok = decide_outcome(**answered)

    assert (no_match.outcome, no_match.reasons, no_match.confidence) == (
        "no_match",
        ["out_of_scope"],
        None,
    )
    assert (ok.outcome, ok.reasons, ok.confidence) == ("ok", [], None)
    assert set(ok.signals) == set(SIGNALS)  # the signals are still reported


# --- nothing in force on the day asked about -------------------------------------------------

NEW_PENSION = _concept("Full new State Pension weekly amount")
RATE_2024 = _unit("£221.20 a week", kind="threshold", amount="221.20", valid_from=D(2024, 4, 6))


def test_every_figure_of_the_topic_starting_later_refuses_whatever_the_confidence():
    """2012, before the new State Pension began: the undated rules found do not answer it."""
    hits = [_hit(NEW_PENSION, _seen(_unit("You can get the full new State Pension if…")))]
    topic = TopicFacts(NEW_PENSION, 3, [RATE_2024])
    assert outcome.nothing_in_force([outcome.NO_RULE_ON_DATE], hits, topic, D(2012, 6, 1))


def test_a_fact_dated_by_then_under_a_neighbouring_concept_leaves_it_to_be_weighed():
    """2015-16's profit limit was filed under "who pays", not the topic holding later figures."""
    dated = _unit("a profit of £5,965 or more a year", valid_from=D(2015, 4, 6))
    hits = [_hit(_concept("Who pays National Insurance"), _seen(dated))]
    topic = TopicFacts(NEW_PENSION, 3, [RATE_2024])
    assert not outcome.nothing_in_force([outcome.NO_RULE_ON_DATE], hits, topic, D(2015, 10, 1))


def test_a_figure_of_the_topic_in_force_then_or_undated_leaves_it_to_be_weighed():
    hits = [_hit(NEW_PENSION, _seen(_unit("You can get the full new State Pension if…")))]
    undated = _unit("£221.20 a week", kind="threshold", amount="221.20")
    topic = TopicFacts(NEW_PENSION, 3, [RATE_2024, undated])
    assert not outcome.nothing_in_force([outcome.NO_RULE_ON_DATE], hits, topic, D(2012, 6, 1))
    assert not outcome.nothing_in_force(["no_amount_in_kb"], hits, topic, D(2012, 6, 1))


def test_no_hit_bearing_a_unit_on_the_day_refuses():
    assert outcome.nothing_in_force([outcome.NO_RULE_ON_DATE], [_hit(NEW_PENSION)], None, DAY)
