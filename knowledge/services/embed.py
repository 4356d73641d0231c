"""Embedding of concepts and units, in batches, skipping text that has not changed."""

from __future__ import annotations

import hashlib

from django.db import transaction

from knowledge.embeddings import get_embedder
from knowledge.models import AtomicUnit, Concept


def concept_embedding_text(concept: Concept) -> str:
    return f"{concept.name}. {concept.description}"


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def concepts_to_embed() -> list[Concept]:
    """Concepts whose text or model changed since their vector was made."""
    embedder = get_embedder()
    return [
        concept
        for concept in Concept.objects.all()
        if concept.embedding_model != embedder.name
        or concept.embedding_text_hash != text_hash(concept_embedding_text(concept))
        or concept.embedding is None
    ]


def concepts_embed(
    *, pending: list[Concept] | None = None, batch_size: int = 128, progress=lambda done: None
) -> int:
    """Embed `pending` (by default `concepts_to_embed()`); the other concepts cost nothing."""
    embedder = get_embedder()
    pending = concepts_to_embed() if pending is None else pending
    for start in range(0, len(pending), batch_size):
        batch = pending[start : start + batch_size]
        vectors = embedder.embed([concept_embedding_text(concept) for concept in batch])
        with transaction.atomic():
            for concept, vector in zip(batch, vectors, strict=True):
                concept.embedding = vector
                concept.embedding_model = embedder.name
                concept.embedding_text_hash = text_hash(concept_embedding_text(concept))
                concept.save(update_fields=["embedding", "embedding_model", "embedding_text_hash"])
        progress(len(batch))
    return len(pending)


def unit_embedding_text(unit: AtomicUnit) -> str:
    return f"{unit.concept.name}: {unit.text}"


def units_to_embed() -> list[AtomicUnit]:
    """Live units whose text (with their concept's name) or model changed since their vector
    was made."""
    embedder = get_embedder()
    units = (
        AtomicUnit.objects.alive()
        .select_related("concept")
        .only("id", "text", "concept__name", "embedding_model", "embedding_text_hash")
    )
    return [
        unit
        for unit in units
        if unit.embedding_model != embedder.name
        or unit.embedding_text_hash != text_hash(unit_embedding_text(unit))
    ]


def units_embed(
    *, pending: list[AtomicUnit] | None = None, batch_size: int = 128, progress=lambda done: None
) -> int:
    """Embed `pending` (by default `units_to_embed()`); the other units cost nothing."""
    embedder = get_embedder()
    pending = units_to_embed() if pending is None else pending
    for start in range(0, len(pending), batch_size):
        batch = pending[start : start + batch_size]
        texts = [unit_embedding_text(unit) for unit in batch]
        vectors = embedder.embed(texts)
        with transaction.atomic():
            for unit, text, vector in zip(batch, texts, vectors, strict=True):
                AtomicUnit.objects.filter(pk=unit.pk).update(
                    embedding=vector,
                    embedding_model=embedder.name,
                    embedding_text_hash=text_hash(text),
                )
        progress(len(batch))
    return len(pending)
