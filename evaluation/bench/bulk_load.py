"""Binary COPY into the knowledge tables, and the synthetic categories and concepts it loads."""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import contextmanager

import numpy as np
from django.db import connection, transaction
from django.utils import timezone
from pgvector.psycopg.vector import register_vector_info
from psycopg.types import TypeInfo

from evaluation.bench.draws import CATEGORY_COUNT, choices_draw, texts_draw
from knowledge.embeddings import get_embedder
from knowledge.models import Category, Concept


@contextmanager
def copy_cursor():
    """The psycopg cursor under Django's, able to send vectors in binary COPY. The vector
    type is registered on this cursor only, so Django's own queries are unchanged."""
    with connection.cursor() as wrapper:
        cursor = wrapper.cursor
        register_vector_info(cursor, TypeInfo.fetch(cursor.connection, "vector"))
        yield cursor


def copy_rows(cursor, model, columns: tuple[tuple[str, str], ...], rows: Iterable[tuple]) -> None:
    """Binary COPY of `rows` into the given (column, type) pairs. Other NOT NULL columns,
    such as one a later migration adds, get the model field's default."""
    unset = _unset_columns(model, given={name for name, _ in columns})
    columns = columns + tuple((name, pg_type) for name, pg_type, _ in unset)
    defaults = tuple(default for _, _, default in unset)
    names = ", ".join(f'"{name}"' for name, _ in columns)
    with cursor.copy(
        f"COPY {model._meta.db_table} ({names}) FROM STDIN WITH (FORMAT BINARY)"
    ) as copy:
        copy.set_types([pg_type for _, pg_type in columns])
        for row in rows:
            copy.write_row(row + defaults)


def _unset_columns(model, *, given: set[str]) -> list[tuple[str, str, object]]:
    unset = []
    for field in model._meta.concrete_fields:
        if field.column in given or field.null:
            continue
        default = field.get_default()
        if default is None:
            raise ValueError(
                f"the benchmark cannot fill {model._meta.db_table}.{field.column}: add it to its columns"
            )
        unset.append((field.column, field.db_type(connection).split("(")[0], default))
    return unset


def categories_load() -> list[int]:
    categories = Category.objects.bulk_create(
        Category(slug=f"category-{n}", name=f"Category {n}", description="Synthetic", order=n)
        for n in range(1, CATEGORY_COUNT + 1)
    )
    return [category.pk for category in categories]


CONCEPT_COLUMNS = (
    ("id", "int8"), ("created_at", "timestamptz"), ("updated_at", "timestamptz"),
    ("taxonomy_id", "text"), ("category_id", "int8"), ("name", "text"), ("description", "text"),
    ("status", "text"), ("embedding", "vector"), ("embedding_model", "text"),
    ("embedding_text_hash", "text"),
)  # fmt: skip


def concepts_load(
    *, vectors: np.ndarray, categories: np.ndarray, category_ids: list[int], rng
) -> list[str]:
    """Concept ids are 1..n in vector order. A few are not active, as in production."""
    count, now, model = len(vectors), timezone.now(), get_embedder().name
    names = [text[:-1] for text in texts_draw(rng, count, shortest=20, longest=60)]
    descriptions = texts_draw(rng, count, shortest=60, longest=200)
    statuses = choices_draw(rng, (("active", 0.97), ("proposed", 0.02), ("retired", 0.01)), count)
    rows = (
        (
            n + 1,
            now,
            now,
            f"category_{categories[n] + 1}.concept_{n + 1}",
            category_ids[categories[n]],
            names[n],
            descriptions[n],
            statuses[n],
            vectors[n],
            model,
            "",
        )
        for n in range(count)
    )
    with transaction.atomic(), copy_cursor() as cursor:
        copy_rows(cursor, Concept, CONCEPT_COLUMNS, rows)
    return names
