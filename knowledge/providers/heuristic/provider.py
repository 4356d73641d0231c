"""The offline, deterministic provider: everything it makes is labelled provider=heuristic.

It does real work, not an imitation of an LLM. Pass 1 picks the page's category from the
concepts' vectors and the page's subject; pass 2 is the rules of knowledge.extraction over the
parsed page structure, each unit bound to a concept only when the best beats the runner-up by
a margin (knowledge.extraction.binding), otherwise left for triage with its candidates. It also
answers the superseding detector's question (same rule at different times?) from types,
structured values and dates (adjudication), a turn's analysis (analysis), and the quality
job's (does a unit belong to its concept?) from the vectors.
"""

from __future__ import annotations

import re
from collections import defaultdict

import numpy as np

from knowledge import embeddings
from knowledge.domain.extraction import (
    Adjudication,
    ConceptInfo,
    PageInput,
    Placement,
    UnitText,
    Usage,
)
from knowledge.extraction.binding import BINDING_MARGIN, proposals_bind
from knowledge.extraction.page_dates import page_validity
from knowledge.extraction.subjects import page_subject
from knowledge.extraction.units import extract_proposals
from knowledge.providers.heuristic.adjudication import HEURISTIC_MODEL, heuristic_adjudicate
from knowledge.providers.heuristic.analysis import analyse
from knowledge.providers.types import PageContext, ProviderError
from knowledge.text.dates import tax_year_start_year

_PLACEMENT = "Heuristic (embedding similarity, no LLM)"
# Weight of a category's concepts naming the page's subject, beside the cosine of the title
# and headings. Set so that a subject a concept names in full (+0.15) outweighs the lead
# MiniLM gives a category with many near concepts (Tax-Free Childcare leads Student Finance
# by 0.11 on the Childcare Grant page).
SUBJECT_WEIGHT = 0.15


def _cosine(first, second) -> float:
    a, b = embeddings.unit_vectors([first, second])
    return float(np.dot(a, b))


class HeuristicProvider:
    name = "heuristic"
    prompt_version = HEURISTIC_MODEL
    adjudicate_model = HEURISTIC_MODEL

    def __init__(
        self, embedder=None, margin: float = BINDING_MARGIN, placement_margin: float | None = None
    ):
        self._embedder = embedder
        self.margin = margin
        self._placement_margin = placement_margin

    @property
    def placement_margin(self) -> float:
        if self._placement_margin is None:
            from django.conf import settings

            return settings.QUALITY_MISPLACED_MARGIN
        return self._placement_margin

    @property
    def embedder(self):
        if self._embedder is None:
            self._embedder = embeddings.get_embedder()
        return self._embedder

    def analyse_query(self, *, query, conversation, vocabulary, today):
        return analyse(query=query, conversation=conversation, vocabulary=vocabulary, today=today)

    # --- pass 1 ---------------------------------------------------------------------------

    def page_context(self, *, page: PageInput, categories, concepts):
        headings = [s["heading_path"][-1] for s in page.sections if s["heading_path"]][:8]
        query = f"{page.title}. " + ". ".join(dict.fromkeys(headings))
        scores = self._category_scores(query, concepts)
        if not scores:
            raise ProviderError("no concept has a vector yet: run `python manage.py embed`")
        shares = _subject_shares(page_subject(page.title), concepts)
        best = max(scores, key=lambda slug: scores[slug] + SUBJECT_WEIGHT * shares.get(slug, 0))
        # Related: the categories MiniLM puts near the page, as before the subject decided
        # which one leads (the subject picks the main category, it does not narrow the rest).
        ranked = [slug for slug in sorted(scores, key=scores.get, reverse=True) if slug != best]
        top = max(scores.values())
        related = [slug for slug in ranked[:2] if scores[slug] >= top - 0.06]
        period = page_validity(page)
        context = PageContext(
            domain=page.title,
            audience=_audience(page.text),
            period=_label(period.valid_from) if period and period.valid_from else None,
            category=best,
            related_categories=related,
        )
        return context, Usage(model=HEURISTIC_MODEL)

    def _category_scores(self, query: str, concepts) -> dict[str, float]:
        vector = self.embedder.embed([query])[0]
        by_category: dict[str, list[float]] = defaultdict(list)
        for concept in concepts:
            if concept.vector is not None:
                by_category[concept.category].append(float(np.dot(vector, concept.vector)))
        return {
            slug: float(np.mean(sorted(values, reverse=True)[:3]))
            for slug, values in by_category.items()
        }

    # --- superseding ----------------------------------------------------------------------

    def adjudicate_superseding(self, *, older: UnitText, newer: UnitText) -> Adjudication:
        return heuristic_adjudicate(older=older, newer=newer)

    # --- quality --------------------------------------------------------------------------

    def check_unit_placement(
        self, *, unit: UnitText, concept: ConceptInfo, alternatives: list[ConceptInfo]
    ) -> Placement:
        """Misplaced when the nearest alternative's vector is nearer the unit's than its own
        concept's by at least the placement margin. `confidence` is that cosine gap, clipped
        to 0..1: a rough signal, not calibrated."""
        if unit.vector is None or concept.vector is None:
            raise ProviderError("the placement check needs vectors: run `python manage.py embed`")
        own = _cosine(unit.vector, concept.vector)
        scored = [(c, _cosine(unit.vector, c.vector)) for c in alternatives if c.vector is not None]
        usage = Usage(model=HEURISTIC_MODEL)
        if not scored:
            return Placement(True, None, f"{_PLACEMENT}: no other concept to compare", 0.0, usage)
        best, other = max(scored, key=lambda item: item[1])  # the first of equals, as ranked
        gap = other - own
        if gap < self.placement_margin:
            reason = (
                f"{_PLACEMENT}: nearest its concept {concept.taxonomy_id} ({own:.2f}) within "
                f"the margin; next {best.taxonomy_id} ({other:.2f})"
            )
            return Placement(True, None, reason, min(1.0, max(0.0, -gap)), usage, round(gap, 4))
        reason = (
            f"{_PLACEMENT}: closer to {best.taxonomy_id} ({other:.2f}) than to its concept "
            f"{concept.taxonomy_id} ({own:.2f})"
        )
        return Placement(False, best.taxonomy_id, reason, min(1.0, gap), usage, round(gap, 4))

    # --- pass 2 ---------------------------------------------------------------------------

    def extract_units(self, *, page: PageInput, context: PageContext, concepts):
        proposals = extract_proposals(page)
        allowed = {context.category, *context.related_categories}
        mine = [c for c in concepts if c.category in allowed]
        proposals_bind(self.embedder, page, proposals, mine, context.category, margin=self.margin)
        return proposals, Usage(model=HEURISTIC_MODEL)


def _subject_shares(subject: str, concepts) -> dict[str, float]:
    """Per category, how plainly one of its concepts names the page's subject: 1 when a
    concept's name holds the whole subject ('Childcare Grant'), 0.7 when its description does
    ('New Style Employment and Support Allowance', which MiniLM finds as near the JSA concepts),
    0 otherwise."""
    phrase = " ".join(re.sub(r"\([^)]*\)", "", subject).lower().split())
    shares: dict[str, float] = defaultdict(float)
    if len(phrase) < 4:
        return shares
    for concept in concepts:
        found = 1.0 if phrase in concept.name.lower() else 0.0
        if not found and phrase in " ".join(concept.description.lower().split()):
            found = 0.7
        shares[concept.category] = max(shares[concept.category], found)
    return shares


def _label(day) -> str:
    start = tax_year_start_year(day)
    return f"{start}-{(start + 1) % 100:02d}"


def _audience(text: str) -> str:
    lowered = text.lower()
    for word, audience in (
        ("employer", "employers and employees"),
        ("student", "students"),
        ("child", "parents and carers"),
        ("pension", "people planning or drawing a pension"),
        ("self-employed", "the self-employed"),
    ):
        if word in lowered:
            return audience
    return "the public"
