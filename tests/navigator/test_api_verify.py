"""POST /api/v1/verify over the fixture knowledge base: figures checked exactly (amount,
period, the date), numbers in words, a wrong citation, nothing to check, oversize answers."""

import pytest

from knowledge.models import AtomicUnit
from knowledge.reading.claims import answer_claims, claim_figures
from navigator.models import QueryLog
from navigator.schemas.verify import MAX_ANSWER_CHARS
from tests.fake_openai import fake_openai_fixture, point_settings_at  # noqa: F401

PENSION = "The full new State Pension is £221.20 a week."


def _claims(api, answer, **body):
    response = api.post("/verify", {"answer": answer, **body})
    assert response.status_code == 200, response.content
    return response.json()


def _only(body):
    (claim,) = body["claims"]
    return claim


def test_a_figure_in_force_is_supported_with_its_unit_and_source(kb, api):
    body = _claims(api, PENSION, as_of="2024-10-01")
    claim = _only(body)
    assert (claim["verdict"], claim["reason"]) == ("supported", "value_matches")
    assert claim["units"] and "221.20" in claim["units"][0]["evidence_quote"]
    assert claim["units"][0]["source_url"].endswith("/new-state-pension")
    assert body["support_score"] == 1.0 and body["as_of"] == "2024-10-01"
    assert (claim["start"], claim["end"]) == (0, len(PENSION) - 1)


def test_checking_claims_assembles_no_search_context(kb, api, monkeypatch):
    """A claim's search needs the units found, never the context an assistant reads."""
    from knowledge.retrieval import search

    assembled = []
    monkeypatch.setattr(search, "assemble_context", lambda hits, **_: assembled.append(1))
    claim = _only(_claims(api, PENSION, as_of="2024-10-01"))
    assert claim["verdict"] == "supported" and assembled == []


def test_a_weekly_figure_stated_as_monthly_is_contradicted(kb, api):
    claim = _only(
        _claims(api, "The full new State Pension is £221.20 a month.", as_of="2024-10-01")
    )
    assert (claim["verdict"], claim["reason"]) == ("contradicted", "different_period")
    assert "week" in claim["knowledge_base_value"]


def test_the_tax_year_boundary_decides_which_figure_holds(kb, api):
    before = _only(_claims(api, PENSION, as_of="2024-04-05"))  # still 2023 to 2024
    after = _only(_claims(api, PENSION, as_of="2024-04-06"))
    assert (before["verdict"], before["reason"]) == ("contradicted", "not_in_force_on_date")
    assert (after["verdict"], after["reason"]) == ("supported", "value_matches")


def test_another_amount_on_the_same_topic_is_contradicted(kb, api):
    claim = _only(_claims(api, "The full new State Pension is £230.00 a week.", as_of="2024-10-01"))
    assert (claim["verdict"], claim["reason"]) == ("contradicted", "value_differs")
    assert claim["knowledge_base_value"]


def test_numbers_in_words_are_checked_as_figures(kb, api):
    claim = _only(
        _claims(
            api,
            "Income over £125,140 is taxed at the additional rate of forty-five per cent.",
            as_of="2024-10-01",
        )
    )
    assert claim["verdict"] == "supported"


def test_a_claim_citing_a_unit_that_does_not_state_it(kb, api):
    unrelated = (
        AtomicUnit.objects.exclude(text__contains="221.20").exclude(value_amount=None).first()
    )
    claim = _only(_claims(api, PENSION, as_of="2024-10-01", cited_unit_ids=[unrelated.pk]))
    assert (claim["verdict"], claim["reason"]) == ("unsupported", "wrong_fact_cited")


def test_an_answer_with_nothing_to_check(kb, api):
    body = _claims(api, "Thanks for asking! I hope this helps.")
    assert body["claims"] == [] and body["support_score"] is None


def test_an_oversize_answer_is_refused_clearly(kb, api):
    response = api.post("/verify", {"answer": "x" * (MAX_ANSWER_CHARS + 1)})
    assert response.status_code in (413, 422)
    if response.status_code == 422:
        assert f"at most {MAX_ANSWER_CHARS}" in response.json()["detail"]


def test_a_field_verify_does_not_take_is_refused_naming_it(kb, api):
    response = api.post("/verify", {"answer": PENSION, "query": "How much is the State Pension?"})
    assert response.status_code == 422
    assert response.json()["fields"] == [
        {"field": "query", "message": "Extra inputs are not permitted"}
    ]


def test_a_verification_is_logged(kb, api):
    _claims(api, PENSION, as_of="2024-10-01")
    row = QueryLog.objects.get(endpoint="/api/v1/verify")
    assert row.status_code == 200 and row.reasons == ["supported"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("It is 25p in the pound.", [("25", "percent")]),
        ("You can save £20k a year.", [("20000", "GBP")]),
        ("about twenty thousand pounds", [("20000", "GBP")]),
        ("You pay 8% above £242 a week", [("8", "percent"), ("242", "GBP")]),
        ("for a child under 12", [("12", "age")]),
        ("backdated for up to 3 months", [("3", "months")]),
        ("you need 35 qualifying years", [("35", "years")]),
        ("up to 18 monthly payments", [("18", "payments")]),
        ("you need 12 points in the assessment", [("12", "points")]),
        ("You must be 19 or older on the first day", [("19", "age")]),
        ("21-year-olds get the full rate", [("21", "age")]),
        ("For the 2017-18 tax year", []),  # a year's span, not a count of years
    ],
)
def test_figures_are_read_from_claims(text, expected):
    found = [(f"{f.value.normalize():f}", f.unit) for f in claim_figures(text)]
    assert found == expected


def test_a_sentence_is_split_where_each_side_states_its_own_figure():
    answer = "You get £25.60 a week for the eldest child and £16.95 a week for each other child."
    claims = answer_claims(answer)
    assert [c.text for c in claims] == [
        "You get £25.60 a week for the eldest child",
        "£16.95 a week for each other child",
    ]
    assert all(answer[c.start : c.end] == c.text for c in claims)
    ranged = answer_claims("Basic rate is 20% on income between £12,571 and £50,270.")
    assert len(ranged) == 1  # a range is one figure's, not two claims


def test_clauses_after_a_comma_are_claims_of_their_own_when_each_states_a_figure():
    answer = (
        "You can borrow up to £348 if you're single, or up to £812 if you claim Child Benefit. "
        "Universal Credit covers up to 85% of childcare costs, up to £1,739.37 a month."
    )
    assert [c.text for c in answer_claims(answer)] == [
        "You can borrow up to £348 if you're single",
        "up to £812 if you claim Child Benefit",
        "Universal Credit covers up to 85% of childcare costs",
        "up to £1,739.37 a month",
    ]
    eldest = answer_claims("Child Benefit was £20.50 a week for your eldest or only child.")
    assert len(eldest) == 1  # "or" inside a phrase does not split it


def test_a_claim_that_names_no_topic_is_searched_with_what_it_leans_on():
    answer = (
        "New Style Jobseeker's Allowance pays up to £90.50 a week. "
        "You can get it for up to 6 months, or £364 a week."
    )
    first, it, fragment = answer_claims(answer)
    assert first.context == first.text
    # a pronoun and no topic named: searched after the sentence before
    assert it.context.startswith("New Style Jobseeker's Allowance pays up to £90.50 a week You")
    assert fragment.text == "£364 a week" and "6 months" in fragment.context


def test_the_question_answered_is_what_a_first_sentence_without_a_topic_leans_on():
    (claim,) = answer_claims(
        "You can get it for up to 6 months.", before="How long is New Style JSA paid?"
    )
    assert claim.context == "How long is New Style JSA paid? You can get it for up to 6 months"


def test_a_model_judges_claims_without_figures_when_configured(kb, api, settings, fake_openai):
    point_settings_at(fake_openai, settings, LLM_MODEL_ANALYSIS="judge-model")
    settings.CLAIM_JUDGE_PROVIDER = "openai"
    fake_openai.answer(
        {"verdict": "unsupported", "fact_numbers": [], "explanation": "No fact says so."},
        model="judge-model",
    )
    answer = "You have to live in the UK to get the new State Pension."

    claim = _only(
        _claims(
            api, answer, conversation=[{"role": "user", "content": "Who gets a State Pension?"}]
        )
    )

    assert (claim["verdict"], claim["reason"]) == ("unsupported", "no_fact_found")
    assert claim["checked_by"] == "model:judge-model"
    assert claim["explanation"] == "No fact says so." and claim["fallback"] is None
    assert "Who gets a State Pension?" not in fake_openai.requests[0].prompt  # it names its topic


def test_a_failing_model_leaves_the_rules_verdict_and_says_why(kb, api, settings, fake_openai):
    point_settings_at(fake_openai, settings)
    settings.CLAIM_JUDGE_PROVIDER = "openai"
    fake_openai.error(503, {"error": {"message": "overloaded"}})

    claim = _only(_claims(api, "You have to live in the UK to get the new State Pension."))

    assert claim["checked_by"] == "rules"
    assert "503" in claim["fallback"] and claim["explanation"] is None


def test_units_stating_a_figure_are_found_by_its_value(kb, db):
    from knowledge.reading.claims import Figure
    from knowledge.verification.evidence import _units_stating, printed

    figure = claim_figures("The full new State Pension is £221.20 a week.")[0]
    found = _units_stating([figure], exclude=set())
    assert found and all("221.20" in u.text or u.value_amount == figure.value for u in found)
    assert printed(Figure(figure.value, "GBP")) == "£221.20"
    assert printed(Figure(claim_figures("£12,570")[0].value, "GBP")) == "£12,570"
    assert printed(Figure(claim_figures("8.75%")[0].value, "percent")) == "8.75%"


def test_an_answers_claims_are_embedded_in_one_call(kb, db, monkeypatch):
    from knowledge import embeddings
    from knowledge.verification.check import answer_verify

    real = embeddings.get_embedder()
    calls = []

    class Counting:
        name = real.name

        def embed(self, texts):
            calls.append(list(texts))
            return real.embed(texts)

    monkeypatch.setattr(embeddings, "get_embedder", lambda: Counting())
    answer = (
        "You get £25.60 a week for the eldest child and £16.95 for each other child. " + PENSION
    )

    found = answer_verify(answer=answer, as_of=None)

    assert len(found.claims) == 3
    contexts = [verdict.claim.context for verdict in found.claims]
    assert len(set(contexts)) == 2  # the two clauses of one sentence share their words
    assert set(contexts) <= set(calls[0])  # every claim's words in the first call
    embedded = [text for call in calls for text in call]
    assert len(embedded) == len(set(embedded))  # and none embedded twice


def test_a_claim_only_other_peoples_facts_support_is_unsupported_for_this_person(kb, api):
    """/income-tax-rates: "These rates apply in England, Wales and Northern Ireland"."""
    answer = "The basic rate of Income Tax is 20%."
    for_england = _only(_claims(api, answer, as_of="2024-10-01", profile={"nation": "england"}))
    assert (for_england["verdict"], for_england["reason"]) == ("supported", "value_matches")
    for_scotland = _only(_claims(api, answer, as_of="2024-10-01", profile={"nation": "scotland"}))
    assert (for_scotland["verdict"], for_scotland["reason"]) == (
        "unsupported",
        "not_for_this_profile",
    )
    assert "England, Wales or Northern Ireland" in for_scotland["explanation"]
    assert for_scotland["units"]  # the facts are shown, for other people
    logged = QueryLog.objects.filter(endpoint__endswith="/verify").latest("pk")
    assert logged.params["profile_fields"] == ["nation"] and "scotland" not in str(logged.params)


def test_the_units_a_verification_reads_are_read_whole_in_its_queries(kb, api):
    """No field of a unit, its concept or its source is fetched row by row while an answer
    is checked and shown (a deferred field read would cost a query each)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    _claims(api, PENSION, as_of="2024-10-01")  # the token's first call of the minute
    answer = f"{PENSION} Child Benefit is £25.60 a week for the eldest child."
    with CaptureQueriesContext(connection) as captured:
        body = _claims(api, answer, as_of="2024-10-01")
    assert all(claim["units"] for claim in body["claims"])
    one_by_one = [
        q["sql"]
        for q in captured
        if any(
            f'"{table}"."id" = ' in q["sql"]
            for table in ("knowledge_atomicunit", "knowledge_concept", "knowledge_source")
        )
    ]
    assert one_by_one == []
