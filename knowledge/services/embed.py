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


def concepts_embed(*, batch_size: int = 128, progress=lambda done: None) -> int:
    """Embed every concept whose text or model changed since its vector was made."""
    embedder = get_embedder()
    stale = [
        concept
        for concept in Concept.objects.all()
        if concept.embedding_model != embedder.name
        or concept.embedding_text_hash != text_hash(concept_embedding_text(concept))
        or concept.embedding is None
    ]
    for start in range(0, len(stale), batch_size):
        batch = stale[start : start + batch_size]
        vectors = embedder.embed([concept_embedding_text(concept) for concept in batch])
        with transaction.atomic():
            for concept, vector in zip(batch, vectors, strict=True):
                concept.embedding = vector
                concept.embedding_model = embedder.name
                concept.embedding_text_hash = text_hash(concept_embedding_text(concept))
                concept.save(update_fields=["embedding", "embedding_model", "embedding_text_hash"])
        progress(len(batch))
    return len(stale)


def unit_embedding_text(unit: AtomicUnit) -> str:
    return f"{unit.concept.name}: {unit.text}"


def units_embed(*, batch_size: int = 128, progress=lambda done: None) -> int:
    """Embed units without a vector from the current model (a unit's text is fixed once made;
    a change of model re-embeds all)."""
    embedder = get_embedder()
    pending = list(
        AtomicUnit.objects.alive()
        .exclude(embedding_model=embedder.name, embedding__isnull=False)
        .select_related("concept")
    )
    for start in range(0, len(pending), batch_size):
        batch = pending[start : start + batch_size]
        vectors = embedder.embed([unit_embedding_text(unit) for unit in batch])
        with transaction.atomic():
            for unit, vector in zip(batch, vectors, strict=True):
                AtomicUnit.objects.filter(pk=unit.pk).update(
                    embedding=vector, embedding_model=embedder.name
                )
        progress(len(batch))
    return len(pending)
