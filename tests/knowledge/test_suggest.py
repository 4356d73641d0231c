"""The order of suggestions: each one new to the person before one that repeats the pages
already shown."""

from knowledge.models import AtomicUnit, Source
from knowledge.query.suggest import Suggestion, _new_pages_first
from knowledge.retrieval.hits import ConceptHit, UnitHit


def _suggestion(name: str, *pages: str) -> Suggestion:
    units = [
        UnitHit(AtomicUnit(source=Source(url=f"https://www.gov.uk/{page}")), 0.7, "current", "")
        for page in pages
    ]
    return Suggestion(ConceptHit(None, 0.7, 0.7, 0.7, 0.0, False, units), [name], found_by=name)


def test_a_suggestion_showing_a_new_page_comes_before_one_repeating_pages_shown():
    turns = [
        _suggestion("tax-free childcare", "help-with-childcare-costs"),
        _suggestion("15 hours", "help-with-childcare-costs"),
        _suggestion("jsa", "jobseekers-allowance"),
        _suggestion("30 hours", "help-with-childcare-costs", "free-childcare-if-working"),
        _suggestion("advance", "universal-credit-advances"),
    ]
    ordered = [s.reasons[0] for s in _new_pages_first(turns)]
    assert ordered == ["tax-free childcare", "jsa", "30 hours", "advance", "15 hours"]
