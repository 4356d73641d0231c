"""The rows of the synthetic knowledge base, a batch of sources at a time: each source with
its one snapshot and its concepts' units, drawn with the life cycles, types and applicability
shares of the development knowledge base, as tuples in the column order COPY writes."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from dataclasses import dataclass
from decimal import Decimal

import numpy as np
from django.utils import timezone
from psycopg.types.json import Jsonb

from evaluation.bench.draws import VectorModel, choices_draw, texts_draw, vectors_near
from knowledge.embeddings import get_embedder

CONCEPTS_PER_SOURCE = 3  # ~30 units a page; the real gov.uk corpus has ~23
# Unit life cycle: (kind, share). Expired and superseded units are the ~25% historical ones.
LIFE_SHARES = (
    ("current", 0.73),
    ("expired", 0.15),
    ("superseded", 0.10),
    ("upcoming", 0.01),
    ("deleted", 0.01),
)
# Who units are for, in the shares the development knowledge base's units have (1,699 units,
# 32% narrowed: mostly to nations, then work, benefits, household, age and income): a search
# with a profile compares each shown unit with it.
APPLICABILITY_SHARES = (
    ("{}", 0.68),
    ('{"nations": ["england", "northern_ireland", "wales"]}', 0.10),
    ('{"nations": ["scotland"]}', 0.05),
    ('{"employment": ["self_employed"]}', 0.06),
    ('{"benefits": ["universal_credit"]}', 0.04),
    ('{"partner": true}', 0.02),
    ('{"children_min": 1}', 0.02),
    ('{"state_pension_age": "under"}', 0.01),
    ('{"age_min": 25}', 0.01),
    ('{"income_min": "60000"}', 0.01),
)
UNIT_TYPES = (
    ("rule", 0.3),
    ("threshold", 0.25),
    ("eligibility", 0.15),
    ("definition", 0.12),
    ("procedure", 0.13),
    ("example", 0.05),
)


SOURCE_COLUMNS = (
    ("id", "int8"), ("created_at", "timestamptz"), ("updated_at", "timestamptz"), ("url", "text"),
    ("base_path", "text"), ("title", "text"), ("document_type", "text"), ("content_hash", "text"),
    ("last_fetched_at", "timestamptz"), ("status", "text"), ("status_reason", "text"),
    ("current_snapshot_id", "int8"),
)  # fmt: skip
SNAPSHOT_COLUMNS = (
    ("id", "int8"), ("source_id", "int8"), ("content_hash", "text"), ("raw_hash", "text"),
    ("origin", "text"), ("raw", "jsonb"), ("text", "text"), ("sections", "jsonb"),
    ("period_hint", "text"), ("fetched_at", "timestamptz"),
)  # fmt: skip
UNIT_COLUMNS = (
    ("id", "int8"), ("created_at", "timestamptz"), ("updated_at", "timestamptz"),
    ("concept_id", "int8"), ("ordinal", "int4"), ("unit_type", "text"), ("text", "text"),
    ("value_amount", "numeric"), ("value_unit", "text"), ("value_period", "text"),
    ("valid_from", "date"), ("valid_to", "date"), ("superseded_by_id", "int8"),
    ("superseded_date", "date"), ("source_id", "int8"), ("snapshot_id", "int8"),
    ("evidence_quote", "text"), ("evidence_start", "int4"), ("evidence_end", "int4"),
    ("evidence_verified", "bool"), ("review_status", "text"), ("provider", "text"),
    ("provider_model", "text"), ("validity_basis", "text"), ("fingerprint", "text"),
    ("embedding", "vector"), ("embedding_model", "text"), ("deleted_at", "timestamptz"),
    ("applicability", "jsonb"),
)  # fmt: skip


@dataclass
class Layout:
    """Where every unit goes: unit ids run on in concept order, and source n (from 0) holds
    concepts CONCEPTS_PER_SOURCE·n onwards. Concept, source and snapshot ids are index + 1."""

    names: list[str]  # of the concepts
    counts: np.ndarray  # units per concept
    first_unit_ids: np.ndarray

    @classmethod
    def of(cls, *, names: list[str], counts: np.ndarray) -> Layout:
        return cls(names, counts, np.concatenate([[1], 1 + np.cumsum(counts)[:-1]]))

    @property
    def sources(self) -> int:
        return -(-len(self.names) // CONCEPTS_PER_SOURCE)

    def concepts_of(self, sources: range) -> range:
        return range(
            sources.start * CONCEPTS_PER_SOURCE,
            min(sources.stop * CONCEPTS_PER_SOURCE, len(self.names)),
        )

    def unit_ids_of(self, concept: int) -> range:
        first = int(self.first_unit_ids[concept])
        return range(first, first + int(self.counts[concept]))


@dataclass
class _UnitDraft:
    """Random draws for a batch's units, in unit id order from `first_id`."""

    first_id: int
    vectors: np.ndarray
    texts: list[str]
    kinds: list[str]
    types: list[str]
    amounts: np.ndarray
    approved: np.ndarray
    model: str
    applicability: list[str]  # JSON text


@dataclass
class BatchRows:
    sources: list[tuple]
    snapshots: list[tuple]
    units: list[tuple]
    historical: int


def batch_rows(
    *, batch: range, layout: Layout, topics: np.ndarray, model: VectorModel, rng
) -> BatchRows:
    concepts = layout.concepts_of(batch)
    owners = np.repeat(
        np.arange(concepts.start, concepts.stop), layout.counts[concepts.start : concepts.stop]
    )
    draft = _UnitDraft(
        first_id=int(layout.first_unit_ids[concepts.start]),
        vectors=vectors_near(rng, topics[owners], model.unit_cosine, shaped=model.shaped),
        texts=texts_draw(rng, len(owners), shortest=80, longest=400),
        kinds=choices_draw(rng, LIFE_SHARES, len(owners)),
        types=choices_draw(rng, UNIT_TYPES, len(owners)),
        amounts=rng.integers(1, 100_000, len(owners)),
        approved=rng.random(len(owners)) < 0.8,
        model=get_embedder().name,
        applicability=choices_draw(rng, APPLICABILITY_SHARES, len(owners)),
    )
    rows = BatchRows([], [], [], 0)
    for source in batch:
        _source_rows(rows, source=source, layout=layout, draft=draft)
    return rows


def _source_rows(rows: BatchRows, *, source: int, layout: Layout, draft: _UnitDraft) -> None:
    """One source, its snapshot (the concepts' headings and unit texts, in which each unit's
    evidence offsets point at its quote) and its units."""
    source_id, now = source + 1, timezone.now()
    url = f"https://www.gov.uk/synthetic-guide-{source_id}"
    pieces, sections, position = [], [], 0
    for part, concept in enumerate(layout.concepts_of(range(source, source + 1)), start=1):
        heading = layout.names[concept] + "\n"
        section_start, position = position, position + len(heading)
        pieces.append(heading)
        ids = layout.unit_ids_of(concept)
        lives = _lives(ids, [draft.kinds[unit_id - draft.first_id] for unit_id in ids])
        for unit_id, life in zip(ids, lives, strict=True):
            row = _unit_row(
                unit_id,
                concept=concept + 1,
                source=source_id,
                life=life,
                start=position,
                draft=draft,
                now=now,
            )
            rows.units.append(row)
            rows.historical += life["historical"]
            pieces.append(row[UNIT_TEXT] + "\n")
            position += len(row[UNIT_TEXT]) + 1
        heading_path = [layout.names[concept]]
        sections.append(
            {
                "start": section_start,
                "end": position,
                "level": 2,
                "url": f"{url}/part-{part}",
                "heading_path": heading_path,
            }
        )
    text = "".join(pieces)
    content_hash = hashlib.sha256(text.encode()).hexdigest()
    base_path = url.removeprefix("https://www.gov.uk")
    rows.sources.append(
        (
            source_id,
            now,
            now,
            url,
            base_path,
            f"Guide {source_id}",
            "guide",
            content_hash,
            now,
            "ok",
            "",
            source_id,
        )
    )
    rows.snapshots.append(
        (
            source_id,
            source_id,
            content_hash,
            content_hash,
            url,
            {"synthetic": True},
            text,
            sections,
            "",
            now,
        )
    )


def _lives(ids: range, kinds: list[str]) -> list[dict]:
    """Ordinals 1..n for the living units. A concept's superseded units form one chain, a
    year apart each, ending at its last current unit, as approved decisions leave them
    (the database refuses overlapping or branching chains); without a current unit they
    have simply expired."""
    today, year = timezone.localdate(), dt.timedelta(days=365)
    current = [unit_id for unit_id, kind in zip(ids, kinds, strict=True) if kind == "current"]
    successor = current[-1] if current else None
    kinds = ["expired" if kind == "superseded" and successor is None else kind for kind in kinds]
    chain = [unit_id for unit_id, kind in zip(ids, kinds, strict=True) if kind == "superseded"]
    chain_starts = {
        unit_id: today - (len(chain) + 1 - place) * year for place, unit_id in enumerate(chain)
    }
    chain_starts[successor] = today - year
    next_in_chain = dict(zip(chain, [*chain[1:], successor], strict=False))  # [] when no chain
    lives, ordinal = [], 0
    for unit_id, kind in zip(ids, kinds, strict=True):
        ordinal += kind != "deleted"
        life = {
            "ordinal": ordinal if kind != "deleted" else None,
            "historical": kind in ("expired", "superseded"),
            "valid_from": today - year,
            "valid_to": None,
            "superseded_by": None,
            "superseded_date": None,
            "deleted_at": timezone.now() if kind == "deleted" else None,
        }
        if kind == "expired":
            life |= {"valid_from": today - 3 * year, "valid_to": today - 2 * year}
        elif kind == "superseded":
            replacement = next_in_chain[unit_id]
            life |= {
                "valid_from": chain_starts[unit_id],
                "superseded_by": replacement,
                "superseded_date": chain_starts[replacement],
            }
        elif kind == "upcoming":
            life["valid_from"] = today + year
        lives.append(life)
    return lives


UNIT_TEXT = 6  # position of `text` in UNIT_COLUMNS


def _unit_row(
    unit_id: int,
    *,
    concept: int,
    source: int,
    life: dict,
    start: int,
    draft: _UnitDraft,
    now: dt.datetime,
) -> tuple:
    n = unit_id - draft.first_id
    text, unit_type = draft.texts[n], draft.types[n]
    amount = Decimal(int(draft.amounts[n])) if unit_type == "threshold" else None
    return (
        unit_id,
        now,
        now,
        concept,
        life["ordinal"],
        unit_type,
        text,
        amount,
        "GBP" if amount is not None else "",
        "year" if amount is not None else "",
        life["valid_from"],
        life["valid_to"],
        life["superseded_by"],
        life["superseded_date"],
        source,
        source,
        text,
        start,
        start + len(text),
        True,
        "approved" if draft.approved[n] else "pending",
        "heuristic",
        "",
        "synthetic",
        hashlib.sha256(text.lower().encode()).hexdigest(),
        draft.vectors[n],
        draft.model,
        life["deleted_at"],
        Jsonb(json.loads(draft.applicability[n])),
    )
