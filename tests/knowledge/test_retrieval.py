"""The search service on hand-made rows: what it shows of each unit."""

import numpy as np

from knowledge.retrieval import SearchParams, concept_search
from tests.factories import axis_vector, make_concept, make_snapshot, make_unit

PAGE = "https://www.gov.uk/guide"
TEXT = "Rates. The basic rate is 20%. The higher rate is 40%. Outside every part."


def test_each_unit_links_to_the_innermost_part_holding_its_quote(db):
    # Parts nest: "rates" holds "basic"; the last sentence lies in no part at all.
    basic, higher, outside = (TEXT.index(words) for words in ("The basic", "The higher", "Outside"))
    sections = [
        {"start": 0, "end": outside - 1, "level": 2, "url": f"{PAGE}/rates", "heading_path": ["Rates"]},
        {"start": basic, "end": higher - 1, "level": 3, "url": f"{PAGE}/rates#basic", "heading_path": ["Rates", "Basic"]},
        {"start": higher, "end": outside - 1, "level": 3, "url": "", "heading_path": ["Rates", "Higher"]},
    ]  # fmt: skip
    snapshot = make_snapshot(text=TEXT, sections=sections)
    snapshot.source.url = PAGE
    snapshot.source.save()
    concept = make_concept(embedding=axis_vector(0))
    quotes = {
        "Rates.": f"{PAGE}/rates",
        "The basic rate is 20%.": f"{PAGE}/rates#basic",
        "The higher rate is 40%.": PAGE,  # its innermost part has no URL: the page's
        "Outside every part.": PAGE,
    }
    for n, quote in enumerate(quotes):
        make_unit(concept=concept, snapshot=snapshot, evidence_quote=quote, embedding=axis_vector(0, 0.1 * n))  # fmt: skip

    result = concept_search(
        params=SearchParams(query="What are the tax rates?", k=1, min_results=1),
        query_vector=np.array(axis_vector(0)),
    )

    shown = {hit.unit.text: hit.part_url for hit in result.concepts[0].units}
    assert shown == quotes
