"""Small factories: each makes a valid row with the fewest arguments a test needs."""

from __future__ import annotations

import datetime as dt
import hashlib
import itertools

from knowledge.models import AtomicUnit, Category, Concept, PageSnapshot, Source

_counter = itertools.count(1)


def make_category(**overrides) -> Category:
    n = next(_counter)
    values = {"slug": f"cat_{n}", "name": f"Category {n}", "order": n}
    values.update(overrides)
    return Category.objects.create(**values)


def make_concept(*, category: Category | None = None, **overrides) -> Concept:
    n = next(_counter)
    values = {
        "taxonomy_id": f"test.concept_{n}",
        "name": f"Concept {n}",
        "description": "A concept made by a test factory.",
        "category": category or make_category(),
    }
    values.update(overrides)
    return Concept.objects.create(**values)


def make_source(**overrides) -> Source:
    n = next(_counter)
    values = {"url": f"https://www.gov.uk/test-page-{n}", "base_path": f"/test-page-{n}"}
    values.update(overrides)
    return Source.objects.create(**values)


def make_snapshot(*, source: Source | None = None, text: str | None = None, **overrides):
    source = source or make_source()
    text = text if text is not None else f"The allowance is £20,000 a year. Page {next(_counter)}."
    values = {
        "source": source,
        "content_hash": hashlib.sha256(text.encode()).hexdigest(),
        "origin": source.url,
        "raw": {"title": "Test"},
        "text": text,
    }
    values.update(overrides)
    return PageSnapshot.objects.create(**values)


def make_unit(*, concept: Concept | None = None, snapshot: PageSnapshot | None = None, **overrides):
    concept = concept or make_concept()
    snapshot = snapshot or make_snapshot()
    quote = overrides.pop("evidence_quote", snapshot.text[: min(len(snapshot.text), 30)])
    start = snapshot.text.find(quote)
    values = {
        "concept": concept,
        "ordinal": (concept.units.exclude(ordinal=None).count() + 1),
        "unit_type": AtomicUnit.Type.RULE,
        "text": quote,
        "source": snapshot.source,
        "snapshot": snapshot,
        "evidence_quote": quote,
        "evidence_start": max(start, 0),
        "evidence_end": max(start, 0) + len(quote),
        "evidence_verified": start >= 0,
        "provider": AtomicUnit.Provider.MANUAL,
        "fingerprint": hashlib.sha256(quote.encode()).hexdigest(),
    }
    values.update(overrides)
    return AtomicUnit.objects.create(**values)


def tax_year(start_year: int) -> tuple[dt.date, dt.date]:
    return dt.date(start_year, 4, 6), dt.date(start_year + 1, 4, 5)


def make_candidate(
    *, older: AtomicUnit | None = None, newer: AtomicUnit | None = None, **overrides
):
    """A pending superseding proposal: `newer` replaces `older` (same concept)."""
    from curation.models import SupersedingCandidate

    older = older or make_unit(valid_from=dt.date(2024, 4, 6))
    newer = newer or make_unit(concept=older.concept, valid_from=dt.date(2025, 4, 6))
    values = {
        "older": older,
        "newer": newer,
        "concept": older.concept,
        "text_similarity": 0.95,
        "cosine": 0.9,
        "same_rule": True,
        "confidence": 0.8,
        "rationale": "same threshold, new tax year",
        "adjudicator": "heuristic",
        "newer_basis": "valid_from",
    }
    values.update(overrides)
    return SupersedingCandidate.objects.create(**values)


def axis_vector(index: int, wobble: float = 0.0) -> list[float]:
    """A unit vector along one axis of the 384 (tilted towards the last by `wobble`): vectors
    whose similarities a test can read at a glance."""
    vector = [0.0] * 384
    vector[index], vector[383] = 1.0, wobble
    norm = sum(value * value for value in vector) ** 0.5
    return [value / norm for value in vector]
