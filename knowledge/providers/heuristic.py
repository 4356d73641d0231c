"""The offline, deterministic provider: everything it makes is labelled provider=heuristic.

It does real work, not an imitation of an LLM. Extraction is rules over the parsed page
structure (knowledge.providers.heuristic_extraction). Concepts are bound by MiniLM similarity
to the concept descriptions of the page's categories, only when the best beats the runner-up
by a margin; otherwise the unit goes to triage with its candidates. It also answers the
superseding detector's question (same rule at different times?) from types, structured values
and dates (knowledge.providers.heuristic_adjudication), and the quality job's (does a unit
belong to its concept?) from the vectors.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from knowledge import embeddings
from knowledge.domain.extraction import (
    Adjudication,
    ConceptInfo,
    PageInput,
    Placement,
    UnitProposal,
    UnitText,
    Usage,
)
from knowledge.providers.heuristic_adjudication import HEURISTIC_MODEL, heuristic_adjudicate
from knowledge.providers.heuristic_dates import page_validity
from knowledge.providers.heuristic_extraction import extract_proposals
from knowledge.providers.heuristic_query import analyse
from knowledge.providers.heuristic_subjects import page_subject
from knowledge.providers.types import PageContext, ProviderError
from knowledge.text.amounts import age_band, amount_text, find_amounts
from knowledge.text.dates import tax_year_start_year
from knowledge.text.words import content_words

# How far (cosine plus the bonuses of `_bind`) the best concept must lead the runner-up for a
# unit to be bound; a closer race goes to triage rather than to a guess. Two measures set it:
# on the audit's judgements (`eval_binding`, folds grouped by page) the margin reaching 90%
# precision is 0.02 to 0.04, while `eval_thresholds` (the development gold thresholds found
# as units under the right concept) falls from 52 of 63 at 0.02 to 43 at 0.03. So 0.02, with
# the name-word bonus at 0.25, which keeps those 52 where 0.15 keeps 49 (53 with age bands).
BINDING_MARGIN = 0.02
_PLACEMENT = "Heuristic (embedding similarity, no LLM)"
# Weight of a category's concepts naming the page's subject, beside the cosine of the title
# and headings. Set so that a subject a concept names in full (+0.15) outweighs the lead
# MiniLM gives a category with many near concepts (Tax-Free Childcare leads Student Finance
# by 0.11 on the Childcare Grant page).
SUBJECT_WEIGHT = 0.15
LEXICAL_WEIGHT = 0.25
AMOUNT_CONCEPT_BONUS = 0.05
# The same for a unit that says who qualifies, to the concept about who qualifies: MiniLM puts
# "You can get PIP if you're 16 or over" as near the PIP overview as its eligibility.
ELIGIBILITY_CONCEPT_BONUS = 0.03
# A unit leaves its page's category only when clearly nearer a related one: a Budgeting
# Loans instruction stays with Budgeting Loans, not with student finance's "how to apply".
MAIN_CATEGORY_BONUS = 0.02
# Weight of the cosine between a unit's heading path and a concept, beside the unit's own.
HEADING_WEIGHT = 0.0
# For a unit and a concept that both name an age band: added when the bands are the same,
# taken away when they do not meet. MiniLM scores "single 25 or over" nearer "single under
# 25" than to itself. 0.1: `eval_binding` 132 of 155 audit labels right (130 without), and
# `eval_thresholds` 53 of 63 (0.05: 52, losing the 18 to 20 rate to the National Living Wage).
AGE_BAND_WEIGHT = 0.1
# Name words weighed by how few candidate names share them (`BindingWeights.distinctive`):
# tried and left off. On 143 units judged for their concept (folds grouped by page) it binds
# 118 right against 116, within noise, while on the fixture pages it sends the Child Benefit
# page's £60,000 to triage and on the corpus it costs one gold threshold (53 of 63, 54 without).
DISTINCTIVE_NAME_WORDS = False
_ELIGIBILITY_CONCEPT = re.compile(r"eligib|who can|qualif", re.I)
_AMOUNT_CONCEPT = re.compile(
    r"rate|threshold|limit|allowance|amount|weekly|monthly|band|\bcap\b|element|grant|payment|"
    r"bonus|charge|minimum|maximum|exempt|wage|earnings|profits|premium|loan|fee",
    re.I,
)


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
        self._bind(
            page, proposals, [c for c in concepts if c.category in allowed], context.category
        )
        return proposals, Usage(model=HEURISTIC_MODEL)

    def _bind(self, page: PageInput, proposals: list[UnitProposal], concepts, main: str) -> None:
        """Bind each proposal to the best-scoring concept (`binding_scores`) when it leads the
        runner-up by the margin; otherwise leave it for triage with its candidates."""
        usable = [concept for concept in concepts if concept.vector is not None]
        if not proposals or not usable:
            return
        scores = binding_scores(self.embedder, page, proposals, usable, main)
        for proposal, score in zip(proposals, scores, strict=True):
            order = np.argsort(-score)[:3]
            proposal.candidates = [(usable[i].taxonomy_id, float(score[i])) for i in order]
            best = float(score[order[0]])
            runner_up = float(score[order[1]]) if len(order) > 1 else -1.0
            if best - runner_up >= self.margin:
                proposal.concept_id = usable[order[0]].taxonomy_id


@dataclass(frozen=True)
class BindingWeights:
    lexical: float = LEXICAL_WEIGHT
    amount: float = AMOUNT_CONCEPT_BONUS
    eligibility: float = ELIGIBILITY_CONCEPT_BONUS
    main: float = MAIN_CATEGORY_BONUS
    heading: float = HEADING_WEIGHT
    age: float = AGE_BAND_WEIGHT
    # Name words weighed by how few of the candidate concepts' names share them: under Child
    # Benefit, "child" and "benefit" name every concept, so "over £60,000" beside "High Income
    # Child Benefit Charge" should count the charge's words, not the benefit's.
    distinctive: bool = DISTINCTIVE_NAME_WORDS

    @property
    def ceiling(self) -> float:
        """The highest score `binding_scores` can give: both cosines 1, every word of the
        concept's name near the unit, the age bands alike and every bonus that applies."""
        bonus = self.lexical + self.main + max(self.amount, self.eligibility) + self.age
        return 1 + self.heading + bonus


def binding_scores(
    embedder,
    page: PageInput,
    proposals: list[UnitProposal],
    usable,
    main: str,
    weights: BindingWeights = BindingWeights(),
) -> np.ndarray:
    """Per proposal and concept: cosine(unit, concept description) + `heading` × cosine(its
    heading path, concept) + a bonus for the words of the concept's name found near the unit
    (MiniLM alone cannot tell 'under 25' from '25 or over') + a bonus to the page's own
    category + a bonus, for amounts, to concepts that name an amount (a rate, a limit) rather
    than a topic ('who pays', 'overview'), and for eligibility to concepts about who
    qualifies."""
    matrix = np.asarray([concept.vector for concept in usable], dtype=np.float32)
    subject = page_subject(page.title)
    queries = [
        # a text stated after its subject and heading already says where it stands
        p.text
        if p.text.startswith(subject)
        else f"{page.title}. {p.section}. {p.text}"
        if p.section
        else f"{page.title}. {p.text}"
        for p in proposals
    ]
    scores = embedder.embed(queries) @ matrix.T
    if weights.heading:
        headings = [f"{page.title}. {p.section}" for p in proposals]
        scores = scores + weights.heading * (embedder.embed(headings) @ matrix.T)
    names = [
        content_words(f"{c.name} {c.taxonomy_id.replace('_', ' ').replace('.', ' ')}")
        for c in usable
    ]
    weight_of = _name_word_weights(names) if weights.distinctive else None
    in_main = np.array([c.category == main for c in usable])
    names_eligibility = np.array(
        [bool(_ELIGIBILITY_CONCEPT.search(f"{c.taxonomy_id} {c.name}")) for c in usable]
    )
    names_amount = np.array(
        [bool(_AMOUNT_CONCEPT.search(f"{c.taxonomy_id} {c.name}")) for c in usable]
    )
    bands = [age_band(c.name) for c in usable]
    for index, proposal in enumerate(proposals):
        clause = _figure_clause(proposal)
        if weights.age and (band := age_band(clause)):
            scores[index] += weights.age * np.array([_band_fit(band, other) for other in bands])
        # the page's subject counts beside the unit's own words: on the High Income Child
        # Benefit Charge page, "£60,000" is the charge's threshold, not a Child Benefit rate
        near = content_words(f"{subject} {proposal.section} {clause}")
        lexical = np.array([_name_share(name, near, weight_of) for name in names])
        scores[index] += weights.lexical * lexical + weights.main * in_main
        if proposal.unit_type == "threshold":
            scores[index] += weights.amount * names_amount
        elif proposal.unit_type == "eligibility":
            scores[index] += weights.eligibility * names_eligibility
    return scores


def _name_word_weights(names: list[frozenset[str]]) -> dict[str, float]:
    """Each name word's weight among these concepts: log(1 + concepts / concepts naming it),
    so a word every candidate shares weighs log 2 and one only a single concept names weighs
    most."""
    counts: dict[str, int] = defaultdict(int)
    for name in names:
        for word in name:
            counts[word] += 1
    return {word: float(np.log1p(len(names) / count)) for word, count in counts.items()}


def _name_share(name: frozenset[str], near: frozenset[str], weight_of) -> float:
    """The share of a concept's name found near the unit: by word count, or by weight."""
    if not name:
        return 0.0
    if weight_of is None:
        return len(name & near) / len(name)
    return sum(weight_of[word] for word in name & near) / sum(weight_of[word] for word in name)


def _band_fit(band: tuple[int, int], other: tuple[int, int] | None) -> float:
    if other is None:
        return 0.0
    if band == other:
        return 1.0
    return -1.0 if band[1] < other[0] or other[1] < band[0] else 0.0


def _figure_clause(proposal: UnitProposal) -> str:
    """The words that go with a figure: its clause, not the whole sentence ("you'll pay 10% on
    your gains (or 18% on residential property)": 'residential' is the 18%'s word), with
    the aside that qualifies it ("£277.08 (born before 6 April 2017)"). A table row's label
    cells before it ("Mobility part; Lower weekly rate: £28.70") are its clause."""
    if proposal.value_amount is None or not proposal.value_unit:
        return proposal.text
    text = proposal.text
    at = text.find(amount_text(proposal.value_amount, proposal.value_unit))
    if at < 0:
        return text
    start = max(text.rfind(mark, 0, at) for mark in (". ", "("))
    cells = text[max(start, 0) : at].split("; ")
    while len(cells) > 1 and not find_amounts(cells[-2]):
        cells[-2:] = ["; ".join(cells[-2:])]
    head = cells[-1]
    ends = [e for mark in ("; ", ". ") if (e := text.find(mark, at)) > 0]
    clause = text[at : min(ends, default=len(text))]
    aside = clause.find(" (", 1)
    if aside > 0 and find_amounts(clause[aside:]):  # "(or 18% on …)": another figure's words
        clause = clause[:aside]
    return head + clause


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
