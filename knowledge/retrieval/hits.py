"""The units a search shows: each kept concept's units nearest the question, with their
page, part URL and other pages, and what the knowledge base holds on the question's topic,
loaded in one query as model instances of only the columns shown."""

from __future__ import annotations

import datetime as dt
import json
from collections import defaultdict
from dataclasses import dataclass, field

from django.db import connection
from django.db.models.base import ModelState

from knowledge.domain.fit import Fit
from knowledge.domain.profile import Person
from knowledge.domain.temporal import NEWER_PERIOD
from knowledge.models import AtomicUnit, Category, Concept, PageSnapshot, Source
from knowledge.retrieval.person_sql import person_named_sql
from knowledge.retrieval.sql import (
    NEWER_PERIOD_KNOWN,
    VISIBLE_ON_DAY,
    prepared_rows,
    reviewed_sql,
    vector_literal,
)
from knowledge.text.sections import section_at

UNITS_PER_CONCEPT = 8


@dataclass
class UnitHit:
    unit: AtomicUnit
    similarity: float
    temporal_status: str
    part_url: str
    fit: Fit | None = None  # with a profile: whether the unit is for this person
    # Read from further down its concept because it names the person, not for its nearness
    # to the question: it does not say on its own that the question is answered for them.
    named_not_near: bool = False


@dataclass
class ConceptHit:
    concept: Concept
    score: float
    concept_similarity: float
    unit_similarity: float
    text_rank: float
    below_quality: bool
    units: list[UnitHit] = field(default_factory=list)


@dataclass
class TopicFacts:
    """What the knowledge base holds on the question's topic: how many units (visible or
    not) and its threshold units, whatever their dates (of a search of reviewed units only,
    only the reviewed ones)."""

    concept: Concept
    unit_count: int
    thresholds: list[AtomicUnit]


def load_hits(
    kept: list[dict],
    vector,
    *,
    topic_id: int | None,
    day: dt.date,
    visible_only: bool,
    reviewed_only: bool = False,
    per_concept: int = UNITS_PER_CONCEPT,
    person: Person | None = None,
) -> tuple[list[ConceptHit], TopicFacts | None]:
    """The kept concepts with their units (the `per_concept` nearest the question each, and
    for a `person` those further down that name them), and what the knowledge base holds on
    the topic (the concept nearest the question), which the outcome weighs: one query for
    both."""
    if not kept:
        return [], None
    shown = _concepts_with_best_units(
        vector,
        concept_ids=[row["id"] for row in kept],
        topic_id=topic_id,
        day=day if visible_only else None,
        reviewed_only=reviewed_only,
        per_concept=per_concept,
        person=person,
    )
    concepts, units = shown.concepts, shown.units
    by_concept: dict[int, list[UnitHit]] = defaultdict(list)
    read: set[int] = set()
    for unit, part_url in units:
        if unit.pk in read:  # near the question and naming the person
            continue
        read.add(unit.pk)
        status = unit.temporal_status_on(day, newer_period_known=unit.newer_period_known).value
        similarity = round(1 - unit.distance, 4)
        by_concept[unit.concept_id].append(UnitHit(unit, similarity, status, part_url))
    hits = []
    for row in kept:
        hit = ConceptHit(
            concept=concepts[row["id"]],
            score=round(row["score"], 4),
            concept_similarity=round(row["concept"], 4),
            unit_similarity=round(row["unit"], 4),
            text_rank=round(row["text"], 4),
            below_quality=row["below"],
        )
        hit.units = by_concept.get(row["id"], [])
        hits.append(hit)
    return hits, shown.topic


# How many of a concept's units naming the person are read beside its nearest.
NAMING_UNITS = UNITS_PER_CONCEPT // 2

# What a search shows of a unit: vectors and page texts stay in the database (parsing a
# vector costs more than the rest of the row).
UNIT_COLUMNS_SHOWN = (
    "id", "concept_id", "unit_type", "text", "value_amount", "value_unit", "value_period",
    "valid_from", "valid_to", "superseded_by_id", "superseded_date", "evidence_quote",
    "evidence_start", "evidence_end", "evidence_verified", "provider", "review_status",
    "source_id", "snapshot_id", "confirmed_at", "unconfirmed_at", "validity_basis", "figures",
    "corrected_by_id", "corrected_at", "applicability",
)  # fmt: skip
CONCEPT_COLUMNS_SHOWN = ("id", "taxonomy_id", "name", "category_id")
CATEGORY_COLUMNS_SHOWN = ("id", "slug", "name")


def unit_part_url(unit: AtomicUnit) -> str:
    """The address of the innermost section of the unit's page that holds its quote (a
    guide's part, say), else of the page. The search reads the same in SQL (_PART_URL_SQL)."""
    section = section_at(unit.snapshot.sections or [], unit.evidence_start)
    return (section or {}).get("url") or unit.source.url


# unit_part_url in SQL, so that the section list stays in the database: sections are in text
# order, so the innermost holding the offset is the last.
_PART_URL_SQL = """
    COALESCE(NULLIF((
        SELECT section->>'url' FROM jsonb_array_elements(ps.sections) WITH ORDINALITY AS s(section, n)
        WHERE (section->>'start')::int <= ranked.evidence_start AND ranked.evidence_start <= (section->>'end')::int
        ORDER BY n DESC LIMIT 1
    ), ''), src.url)
"""


@dataclass
class _Shown:
    concepts: dict[int, Concept]
    units: list[tuple[AtomicUnit, str]]  # with its part URL
    topic: TopicFacts | None


THRESHOLD_COLUMNS = ("id", "valid_from", "valid_to", "superseded_by_id", "superseded_date")


def _concepts_with_best_units(
    vector,
    *,
    concept_ids: list[int],
    topic_id: int | None,
    day,
    reviewed_only: bool,
    per_concept: int,
    person: Person | None = None,
) -> _Shown:
    """The concepts shown, and each one's units nearest the query (the top few a concept,
    ranked and cut by PostgreSQL) with their page, part URL, snapshot date, other pages and
    corrector, and the topic's facts: one query, so that only what is shown leaves the
    database. Plain SQL: the ORM spent longer building these queries than PostgreSQL spends
    running them."""
    visible = VISIBLE_ON_DAY if day is not None else ""
    if reviewed_only:
        visible += reviewed_sql(table="u")
    reviewed = {
        table: reviewed_sql(table=table) if reviewed_only else "" for table in ("alive", "t")
    }
    users, username = _user_table()
    unit_columns = ", ".join(f"u.{name}" for name in UNIT_COLUMNS_SHOWN)
    threshold_columns = ", ".join(f"t.{name}" for name in THRESHOLD_COLUMNS)
    newer_period = NEWER_PERIOD.sql(table="t")
    names_person, person_params = person_named_sql(person, table="u")
    # For a person, the nearest few units of each concept that name them, however far down:
    # a branch of its own, so that the nearest units' query keeps its early stop (a unit in
    # both is shown once).
    naming = (
        ""
        if names_person == "FALSE"
        else f"""
                UNION ALL
                SELECT * FROM (
                    SELECT {unit_columns}, u.embedding <=> %(q)s::vector AS distance,
                           {NEWER_PERIOD_KNOWN} AS newer_period_known,
                           %(per_concept)s + row_number() OVER (
                               PARTITION BY u.concept_id ORDER BY u.embedding <=> %(q)s::vector, u.id
                           ) AS place
                    FROM knowledge_atomicunit u
                    WHERE u.concept_id = ANY(%(concepts)s) AND u.deleted_at IS NULL
                      AND u.embedding IS NOT NULL {visible} AND {names_person}
                ) naming WHERE naming.place <= %(per_concept)s + {NAMING_UNITS}"""
    )
    sql = f"""
        WITH best AS MATERIALIZED (  -- ranked once, whatever the join order below
            SELECT ranked.*, src.url, src.status, ps.fetched_at, ps.captured_on, {_PART_URL_SQL},
                   ARRAY(SELECT other.url FROM knowledge_unitsighting seen
                         JOIN knowledge_source other ON other.id = seen.source_id
                         WHERE seen.unit_id = ranked.id ORDER BY other.url),
                   corrector.{username}
            FROM (
                SELECT * FROM (
                    SELECT {unit_columns}, u.embedding <=> %(q)s::vector AS distance,
                           {NEWER_PERIOD_KNOWN} AS newer_period_known,
                           row_number() OVER (
                               PARTITION BY u.concept_id ORDER BY u.embedding <=> %(q)s::vector, u.id
                           ) AS place
                    FROM knowledge_atomicunit u
                    WHERE u.concept_id = ANY(%(concepts)s) AND u.deleted_at IS NULL
                      AND u.embedding IS NOT NULL {visible}
                ) nearest WHERE nearest.place <= %(per_concept)s
                {naming}
            ) ranked  -- the topic's units are not shown unless the topic is kept
            JOIN knowledge_source src ON src.id = ranked.source_id
            JOIN knowledge_pagesnapshot ps ON ps.id = ranked.snapshot_id
            LEFT JOIN {users} corrector ON corrector.id = ranked.corrected_by_id
        )
        SELECT c.id, c.taxonomy_id, c.name, c.category_id, cat.slug, cat.name,
               CASE WHEN c.id = %(topic)s THEN (
                   SELECT count(*) FROM knowledge_atomicunit alive
                   WHERE alive.concept_id = c.id AND alive.deleted_at IS NULL {reviewed["alive"]}
               ) END,
               CASE WHEN c.id = %(topic)s THEN (
                   SELECT json_agg(json_build_array({threshold_columns}, {newer_period})
                                   ORDER BY t.id)
                   FROM knowledge_atomicunit t
                   WHERE t.concept_id = c.id AND t.deleted_at IS NULL AND t.unit_type = 'threshold'
                     {reviewed["t"]}
               ) END,
               best.*
        FROM knowledge_concept c
        JOIN knowledge_category cat ON cat.id = c.category_id
        LEFT JOIN best ON best.concept_id = c.id
        WHERE c.id = ANY(%(concepts)s) OR c.id = %(topic)s
        ORDER BY c.id, best.distance
    """
    params = {
        "q": vector_literal(vector),
        "concepts": concept_ids,
        "topic": topic_id,
        "day": day,
        "per_concept": per_concept,
        **person_params,
    }
    return _rows_shown(prepared_rows(sql, params), topic_id=topic_id)


def _rows_shown(rows: list[tuple], *, topic_id: int | None) -> _Shown:
    """Model instances of the shown columns (the rest deferred), one per concept, category,
    source and snapshot however many shown units share it."""
    concept_width = len(CONCEPT_COLUMNS_SHOWN) + len(CATEGORY_COLUMNS_SHOWN) - 1
    unit_start = concept_width + 2  # after the topic's unit count and thresholds
    unit_width = len(UNIT_COLUMNS_SHOWN)
    topic = None
    concepts: dict[int, Concept] = {}
    categories: dict[int, Category] = {}
    sources: dict[int, Source] = {}
    snapshots: dict[int, PageSnapshot] = {}
    units: list[tuple[AtomicUnit, str]] = []
    for row in rows:
        if row[0] not in concepts:
            concepts[row[0]] = _concept_loaded(row[:concept_width], categories)
            if row[0] == topic_id:
                topic = _topic_loaded(concepts[row[0]], *row[concept_width:unit_start])
        unit_values = row[unit_start : unit_start + unit_width]
        if unit_values[0] is None:  # a concept without a unit to show
            continue
        unit = _loaded(AtomicUnit, zip(UNIT_COLUMNS_SHOWN, unit_values, strict=True))
        for name in ("figures", "applicability"):  # a raw cursor may hand JSON over as text
            if isinstance(getattr(unit, name), str):
                setattr(unit, name, json.loads(getattr(unit, name)))
        (
            distance,
            newer_period_known,
            _place,
            url,
            status,
            fetched_at,
            captured_on,
            part_url,
            also_found_in,
            corrector,
        ) = row[unit_start + unit_width :]
        unit.distance = distance
        unit.newer_period_known = newer_period_known
        if unit.source_id not in sources:
            sources[unit.source_id] = _loaded(
                Source, (("id", unit.source_id), ("url", url), ("status", status))
            )
        _related(unit, "source", sources[unit.source_id])
        if unit.snapshot_id not in snapshots:
            snapshots[unit.snapshot_id] = _loaded(
                PageSnapshot,
                (
                    ("id", unit.snapshot_id),
                    ("fetched_at", fetched_at),
                    ("captured_on", captured_on),
                ),
            )
        _related(unit, "snapshot", snapshots[unit.snapshot_id])
        unit.also_found_in_urls = list(also_found_in)
        if unit.corrected_by_id is not None:
            _related(unit, "corrected_by", _corrector_loaded(unit.corrected_by_id, corrector))
        units.append((unit, part_url))
    return _Shown(concepts, units, topic)


def _user_table() -> tuple[str, str]:
    """The table of the users who correct units, and its column of their user names."""
    user = AtomicUnit._meta.get_field("corrected_by").related_model
    return user._meta.db_table, user._meta.get_field(user.USERNAME_FIELD).column


def _corrector_loaded(user_id: int, username: str):
    """The expert who corrected a unit, of only their id and user name."""
    user = AtomicUnit._meta.get_field("corrected_by").related_model
    return _loaded(user, (("id", user_id), (user.USERNAME_FIELD, username)))


def _topic_loaded(concept: Concept, unit_count: int, thresholds) -> TopicFacts:
    thresholds = json.loads(thresholds) if isinstance(thresholds, str) else thresholds or []
    return TopicFacts(
        concept=concept,
        unit_count=unit_count,
        thresholds=[_threshold_loaded(values) for values in thresholds],
    )


def _threshold_loaded(values: list) -> AtomicUnit:
    """THRESHOLD_COLUMNS and whether a newer period is known, as the JSON array holds them."""
    *columns, newer_period_known = values
    unit = _loaded(AtomicUnit, _threshold_values(columns), unit_type="threshold")
    unit.newer_period_known = newer_period_known
    return unit


def _threshold_values(values: list) -> list[tuple[str, object]]:
    """THRESHOLD_COLUMNS from JSON, where dates are ISO strings."""
    dates = ("valid_from", "valid_to", "superseded_date")
    return [
        (name, dt.date.fromisoformat(value) if name in dates and value else value)
        for name, value in zip(THRESHOLD_COLUMNS, values, strict=True)
    ]


def _concept_loaded(values: tuple, categories: dict[int, Category]) -> Concept:
    """A Concept from (id, taxonomy_id, name, category_id, category slug, category name)."""
    concept = _loaded(Concept, zip(CONCEPT_COLUMNS_SHOWN, values[:4], strict=True))
    if concept.category_id not in categories:
        category_values = (concept.category_id, *values[4:])
        categories[concept.category_id] = _loaded(
            Category, zip(CATEGORY_COLUMNS_SHOWN, category_values, strict=True)
        )
    _related(concept, "category", categories[concept.category_id])
    return concept


def _loaded(model, values, **more):
    """A model instance as the ORM loads one with only these fields (the rest deferred, read
    from the database if touched): `values` are (attname, value) pairs. Made as Model.from_db
    makes it but without Model.__init__, which walks every field of the model to skip the
    deferred ones and sends pre/post_init signals (no receiver here): ~50 instances a search
    cost 4-5 ms that way."""
    instance = model.__new__(model)
    instance.__dict__.update(values, **more)
    state = instance._state = ModelState()
    state.adding, state.db = False, connection.alias
    return instance


def _related(instance, name: str, related) -> None:
    """instance.<name> = related, where the foreign key's value already matches: only the
    ORM's cache of the related object is filled (the descriptor would check and set both)."""
    instance._state.fields_cache[name] = related
