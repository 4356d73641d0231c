"""Test factories (factory_boy): each makes a valid row with the fewest arguments a test needs."""

from __future__ import annotations

import datetime as dt
import hashlib

import factory
from factory.django import DjangoModelFactory

from knowledge.models import AtomicUnit, Category, Concept, PageSnapshot, Source


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


class CategoryFactory(DjangoModelFactory):
    class Meta:
        model = Category

    slug = factory.Sequence(lambda n: f"cat_{n}")
    name = factory.Sequence(lambda n: f"Category {n}")
    order = factory.Sequence(lambda n: n)


class ConceptFactory(DjangoModelFactory):
    class Meta:
        model = Concept

    taxonomy_id = factory.Sequence(lambda n: f"test.concept_{n}")
    name = factory.Sequence(lambda n: f"Concept {n}")
    description = "A concept made by a test factory."
    category = factory.SubFactory(CategoryFactory)


class SourceFactory(DjangoModelFactory):
    class Meta:
        model = Source

    url = factory.Sequence(lambda n: f"https://www.gov.uk/test-page-{n}")
    base_path = factory.Sequence(lambda n: f"/test-page-{n}")


class SnapshotFactory(DjangoModelFactory):
    class Meta:
        model = PageSnapshot

    source = factory.SubFactory(SourceFactory)
    text = factory.Sequence(lambda n: f"The allowance is £20,000 a year. Page {n}.")
    content_hash = factory.LazyAttribute(lambda snapshot: _sha256(snapshot.text))
    origin = factory.SelfAttribute("source.url")
    raw = factory.LazyFunction(lambda: {"title": "Test"})


class UnitFactory(DjangoModelFactory):
    """A manual unit quoting its snapshot (by default its first 30 characters), appended to
    its concept's ordinals; its evidence verifies when the quote is in the snapshot's text."""

    class Meta:
        model = AtomicUnit

    concept = factory.SubFactory(ConceptFactory)
    snapshot = factory.SubFactory(SnapshotFactory)
    source = factory.SelfAttribute("snapshot.source")
    ordinal = factory.LazyAttribute(
        lambda unit: unit.concept.units.exclude(ordinal=None).count() + 1
    )
    unit_type = AtomicUnit.Type.RULE
    evidence_quote = factory.LazyAttribute(lambda unit: unit.snapshot.text[:30])
    text = factory.SelfAttribute("evidence_quote")
    evidence_start = factory.LazyAttribute(
        lambda unit: max(unit.snapshot.text.find(unit.evidence_quote), 0)
    )
    evidence_end = factory.LazyAttribute(
        lambda unit: unit.evidence_start + len(unit.evidence_quote)
    )
    evidence_verified = factory.LazyAttribute(
        lambda unit: unit.evidence_quote in unit.snapshot.text
    )
    provider = AtomicUnit.Provider.MANUAL
    fingerprint = factory.LazyAttribute(lambda unit: _sha256(unit.evidence_quote))


class CandidateFactory(DjangoModelFactory):
    """A pending superseding proposal: `newer` replaces `older` (same concept)."""

    class Meta:
        model = "curation.SupersedingCandidate"

    older = factory.SubFactory(UnitFactory, valid_from=dt.date(2024, 4, 6))
    newer = factory.SubFactory(
        UnitFactory,
        concept=factory.SelfAttribute("..older.concept"),
        valid_from=dt.date(2025, 4, 6),
    )
    concept = factory.SelfAttribute("older.concept")
    text_similarity = 0.95
    cosine = 0.9
    same_rule = True
    confidence = 0.8
    rationale = "same threshold, new tax year"
    adjudicator = "heuristic"
    newer_basis = "valid_from"


def tax_year(start_year: int) -> tuple[dt.date, dt.date]:
    return dt.date(start_year, 4, 6), dt.date(start_year + 1, 4, 5)


def axis_vector(index: int, wobble: float = 0.0) -> list[float]:
    """A unit vector along one axis of the 384 (tilted towards the last by `wobble`): vectors
    whose similarities a test can read at a glance."""
    vector = [0.0] * 384
    vector[index], vector[383] = 1.0, wobble
    norm = sum(value * value for value in vector) ** 0.5
    return [value / norm for value in vector]
