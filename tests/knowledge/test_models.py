"""Database constraints reject bad rows and leave nothing half-written."""

import datetime as dt

import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction

from knowledge.models import AtomicUnit, Concept, PageSnapshot
from tests.factories import (
    CategoryFactory,
    ConceptFactory,
    SnapshotFactory,
    SourceFactory,
    UnitFactory,
)

pytestmark = pytest.mark.django_db


def _assert_rolls_back_whole(make_good, make_bad, count):
    """A good row and a bad row in one transaction: the bad one fails, neither remains."""
    before = count()
    with pytest.raises(IntegrityError), transaction.atomic():
        make_good()
        make_bad()
        with connection.cursor() as cursor:  # fire deferred constraints now, as COMMIT would
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    assert count() == before


def test_taxonomy_id_unique():
    category = CategoryFactory()
    ConceptFactory(category=category, taxonomy_id="isa.allowance")
    _assert_rolls_back_whole(
        lambda: ConceptFactory(category=category, taxonomy_id="isa.other"),
        lambda: ConceptFactory(category=category, taxonomy_id="isa.allowance"),
        Concept.objects.count,
    )


@pytest.mark.parametrize("bad_id", ["isa", "ISA.allowance", "isa..allowance", "isa.allowance."])
def test_taxonomy_id_must_be_dotted_lowercase(bad_id):
    with pytest.raises(IntegrityError), transaction.atomic():
        ConceptFactory(taxonomy_id=bad_id)


def test_valid_from_after_valid_to_rejected():
    concept = ConceptFactory()
    _assert_rolls_back_whole(
        lambda: UnitFactory(concept=concept),
        lambda: UnitFactory(
            concept=concept, ordinal=9, valid_from=dt.date(2025, 4, 6), valid_to=dt.date(2025, 4, 5)
        ),
        AtomicUnit.objects.count,
    )


def test_single_day_validity_allowed():
    unit = UnitFactory(valid_from=dt.date(2025, 4, 6), valid_to=dt.date(2025, 4, 6))
    assert unit.pk


def test_ordinal_unique_within_concept_but_not_across():
    first, second = ConceptFactory(), ConceptFactory()
    UnitFactory(concept=first, ordinal=1)
    UnitFactory(concept=second, ordinal=1)  # another concept may reuse 1
    _assert_rolls_back_whole(
        lambda: UnitFactory(concept=first, ordinal=2),
        lambda: UnitFactory(concept=first, ordinal=1),
        AtomicUnit.objects.count,
    )


def test_renumbering_may_pass_through_duplicate_ordinals_inside_a_transaction():
    concept = ConceptFactory()
    a = UnitFactory(concept=concept, ordinal=1)
    b = UnitFactory(concept=concept, ordinal=2)
    with transaction.atomic():
        AtomicUnit.objects.filter(pk=a.pk).update(ordinal=2)
        AtomicUnit.objects.filter(pk=b.pk).update(ordinal=1)
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    assert list(concept.units.order_by("ordinal").values_list("pk", flat=True)) == [b.pk, a.pk]


def test_alive_unit_needs_an_ordinal():
    with pytest.raises(IntegrityError), transaction.atomic():
        UnitFactory(ordinal=None)


@pytest.mark.parametrize("start,end", [(-1, 5), (5, 5), (10, 4)])
def test_evidence_offsets_non_negative_and_ordered(start, end):
    concept = ConceptFactory()
    _assert_rolls_back_whole(
        lambda: UnitFactory(concept=concept),
        lambda: UnitFactory(concept=concept, ordinal=5, evidence_start=start, evidence_end=end),
        AtomicUnit.objects.count,
    )


def test_superseded_date_needs_a_successor():
    with pytest.raises(IntegrityError), transaction.atomic():
        UnitFactory(superseded_date=dt.date(2024, 4, 6))


def test_amount_needs_its_unit():
    with pytest.raises(IntegrityError), transaction.atomic():
        UnitFactory(value_amount=20000, value_unit="")


def test_snapshot_unique_per_source_and_hash():
    source = SourceFactory()
    SnapshotFactory(source=source, text="Version one.")
    _assert_rolls_back_whole(
        lambda: SnapshotFactory(source=SourceFactory(), text="Elsewhere."),
        lambda: SnapshotFactory(source=source, text="Version one."),
        PageSnapshot.objects.count,
    )


def test_snapshots_are_immutable_in_the_database():
    snapshot = SnapshotFactory(text="Original text.")
    with pytest.raises(DatabaseError, match="immutable"), transaction.atomic():
        PageSnapshot.objects.filter(pk=snapshot.pk).update(text="Rewritten text.")
    snapshot.refresh_from_db()
    assert snapshot.text == "Original text."


def test_embedding_columns_are_384_dimensional_vectors():
    unit = UnitFactory()
    unit.embedding = [0.1] * 384
    unit.save()
    with pytest.raises(DatabaseError), transaction.atomic():
        AtomicUnit.objects.filter(pk=unit.pk).update(embedding=[0.1] * 10)


def test_hnsw_cosine_indexes_exist():
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname, indexdef FROM pg_indexes WHERE indexdef ILIKE '%hnsw%'")
        rows = dict(cursor.fetchall())
    assert set(rows) >= {"concept_embedding_hnsw", "unit_embedding_hnsw"}
    assert all("vector_cosine_ops" in definition for definition in rows.values())


def test_the_package_exports_every_model_of_the_app():
    """Other areas import models from `knowledge.models`, whatever module defines them."""
    from django.apps import apps

    import knowledge.models

    models = apps.get_app_config("knowledge").get_models()
    assert all(getattr(knowledge.models, model.__name__, None) is model for model in models)
