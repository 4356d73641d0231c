"""The knowledge base: taxonomy (categories, concepts), sources and their snapshots, units.

Invariants that matter for trust are enforced by PostgreSQL, not only by forms: unique
taxonomy ids and aliases, validity ranges, per-concept ordinals, evidence offsets, and the
immutability of page snapshots (a trigger in migration 0002).
"""

from knowledge.models.base import EMBEDDING_DIMENSIONS, TimestampedModel, hnsw_cosine_index
from knowledge.models.jobs import (
    ExtractionItem,
    ExtractionJob,
    ExtractionRun,
    IngestItem,
    IngestJob,
)
from knowledge.models.sources import PageSnapshot, SnapshotLink, Source
from knowledge.models.taxonomy import (
    TAXONOMY_ID_PATTERN,
    Category,
    Concept,
    ConceptAlias,
    GlossaryTerm,
    LifeEvent,
    VocabularyChange,
    taxonomy_id_validator,
)
from knowledge.models.units import AtomicUnit, AtomicUnitQuerySet, QualityFlag, UnitSighting

__all__ = [
    "EMBEDDING_DIMENSIONS",
    "TAXONOMY_ID_PATTERN",
    "AtomicUnit",
    "AtomicUnitQuerySet",
    "Category",
    "Concept",
    "ConceptAlias",
    "GlossaryTerm",
    "LifeEvent",
    "VocabularyChange",
    "ExtractionItem",
    "ExtractionJob",
    "ExtractionRun",
    "IngestItem",
    "IngestJob",
    "PageSnapshot",
    "QualityFlag",
    "SnapshotLink",
    "Source",
    "TimestampedModel",
    "UnitSighting",
    "hnsw_cosine_index",
    "taxonomy_id_validator",
]
