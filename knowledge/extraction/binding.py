"""Binding a unit to its concept: the heuristic extractor's rule for which concept of the
page's categories a statement is about. MiniLM similarity to the concept descriptions, with
bonuses for the words of a concept's name found near the unit, the page's own category, amount
and eligibility concepts, and age bands; bound only when the best beats the runner-up by a
margin, otherwise left for triage with its candidates. `eval_binding` measures it on the
audit judgements (folds grouped by page)."""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from knowledge.domain.extraction import PageInput, UnitProposal
from knowledge.extraction.subjects import page_subject
from knowledge.text.amounts import age_band, amount_text, find_amounts
from knowledge.text.words import content_words

# How far (cosine plus the bonuses of `_bind`) the best concept must lead the runner-up for a
# unit to be bound; a closer race goes to triage rather than to a guess. Two measures set it:
# on the audit's judgements (`eval_binding`, folds grouped by page) the margin reaching 90%
# precision is 0.02 to 0.04, while `eval_thresholds` (the development gold thresholds found
# as units under the right concept) falls from 52 of 63 at 0.02 to 43 at 0.03. So 0.02, with
# the name-word bonus at 0.25, which keeps those 52 where 0.15 keeps 49 (53 with age bands).
BINDING_MARGIN = 0.02
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


def proposals_bind(
    embedder, page: PageInput, proposals: list[UnitProposal], concepts, main: str, *, margin: float
) -> None:
    """Bind each proposal to the best-scoring concept (`binding_scores`) when it leads the
    runner-up by the margin; otherwise leave it for triage with its candidates."""
    usable = [concept for concept in concepts if concept.vector is not None]
    if not proposals or not usable:
        return
    scores = binding_scores(embedder, page, proposals, usable, main)
    for proposal, score in zip(proposals, scores, strict=True):
        order = np.argsort(-score)[:3]
        proposal.candidates = [(usable[i].taxonomy_id, float(score[i])) for i in order]
        best = float(score[order[0]])
        runner_up = float(score[order[1]]) if len(order) > 1 else -1.0
        if best - runner_up >= margin or (
            len(order) > 1 and _narrower_named(proposal, usable[order[0]], usable[order[1]])
        ):
            proposal.concept_id = usable[order[0]].taxonomy_id


def _name_words(concept) -> frozenset[str]:
    """The words of a concept's name and id, without the abbreviation its name gives in
    brackets ("Who can open a Lifetime ISA (LISA)"): a unit need not repeat it."""
    name = re.sub(r"\([^)]*\)", " ", concept.name)
    return content_words(f"{name} {concept.taxonomy_id.replace('_', ' ').replace('.', ' ')}")


def _narrower_named(proposal: UnitProposal, best, runner_up) -> bool:
    """A close race between a concept and the broader one whose name it extends, won by the
    narrower, is no race when the unit says the words that narrow it: "If you're opening a
    Lifetime ISA you must also be under 40" is the Lifetime ISA's eligibility, however near
    the ISAs' own eligibility it sits."""
    narrow, broad = _name_words(best), _name_words(runner_up)
    extra = narrow - broad
    return bool(broad) and broad < narrow and extra <= content_words(proposal.text)


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
