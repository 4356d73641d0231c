"""Reads for the glossary and life-event screen."""

from __future__ import annotations

from django.db.models.functions import Lower

from knowledge.models import GlossaryTerm, LifeEvent


def glossary_terms_listed() -> list[GlossaryTerm]:
    return list(
        GlossaryTerm.objects.select_related("concept", "category").order_by(
            Lower("term"), Lower("means")
        )
    )


def life_events_listed() -> list[LifeEvent]:
    return list(LifeEvent.objects.order_by("slug"))
