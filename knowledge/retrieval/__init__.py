"""Concept retrieval: the database casts the wide net, the application decides.

PostgreSQL finds the nearest concepts (by their own text) and the nearest visible units over
the HNSW indexes, with the floor applied in SQL to 2×k candidates (`sql`). The application
keeps the concepts at or above the quality threshold, tops up to `min_results` from the best
of the rest, marked below quality (`ranking`), gathers each concept's units grouped by source
(`hits`), and decides a typed outcome from the concepts and units together, not from a
similarity alone (`outcome`), before assembling the cited context (`context`). `params`
holds what a search is asked, each bound once; `search` holds the service that runs the stages in turn.
"""

from knowledge.retrieval.context import assemble_context
from knowledge.retrieval.hits import UNITS_PER_CONCEPT, ConceptHit, TopicFacts, UnitHit
from knowledge.retrieval.outcome import decide_outcome
from knowledge.retrieval.params import MAX_QUERY_CHARS, Question, SearchParams
from knowledge.retrieval.search import (
    SearchError,
    SearchResult,
    concept_search,
    source_urls,
    thresholds_for_model,
)
from knowledge.retrieval.sql import (
    index_scans_tuned,
    nearest_concepts,
    nearest_units,
    nearest_units_each,
    side_sessions_close,
    table_sizes_forget,
    tune_index_scans,
    unit_ef_search,
    units_similarities,
    vector_literal,
)

__all__ = [
    "MAX_QUERY_CHARS",
    "UNITS_PER_CONCEPT",
    "ConceptHit",
    "Question",
    "SearchError",
    "SearchParams",
    "SearchResult",
    "TopicFacts",
    "UnitHit",
    "assemble_context",
    "concept_search",
    "decide_outcome",
    "index_scans_tuned",
    "nearest_concepts",
    "nearest_units",
    "nearest_units_each",
    "side_sessions_close",
    "source_urls",
    "table_sizes_forget",
    "thresholds_for_model",
    "tune_index_scans",
    "units_similarities",
    "unit_ef_search",
    "vector_literal",
]
