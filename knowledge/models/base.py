"""What the knowledge base's models share: timestamps and the embedding columns' shape."""

from __future__ import annotations

from django.db import models
from pgvector.django import HnswIndex

EMBEDDING_DIMENSIONS = 384


def hnsw_cosine_index(name: str) -> HnswIndex:
    return HnswIndex(
        name=name, fields=["embedding"], m=16, ef_construction=64, opclasses=["vector_cosine_ops"]
    )


class TimestampedModel(models.Model):
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True
