"""A search for a person: each shown unit is compared with the profile (knowledge.domain.
profile); units for this person come first in their concept, units for other people last,
kept and labelled, never dropped; a concept none of whose units is for this person ranks after
the concepts that have one."""

from __future__ import annotations

from knowledge.domain.fit import profile_fit
from knowledge.domain.profile import Person
from knowledge.retrieval.hits import ConceptHit, UnitHit
from knowledge.text.applicability import Applicability
from knowledge.text.nations import says_not_here

# A unit for this person first, one for everyone next, one for someone else last.
_PLACE = {True: 0, None: 1, False: 2}


def profile_label(hits: list[ConceptHit], person: Person, *, shown: int | None = None) -> None:
    """Set each unit's `fit` for `person`, and order each concept's units by it. With
    `shown`, the units were read beyond it (nearest the question first): the first `shown`
    stay, and of the others those that single this person out join them."""
    for hit in hits:
        for unit_hit in hit.units:
            unit_hit.fit = profile_fit(Applicability.from_json(unit_hit.unit.applicability), person)
        if shown is not None:
            nearest, beyond = hit.units[:shown], hit.units[shown:]
            named = [u for u in beyond if u.fit.applies and u.fit.singling_out]
            for unit_hit in named:
                unit_hit.named_not_near = True
            hit.units = nearest + named
        hit.units.sort(key=_unit_place)


def concepts_for_person(hits: list[ConceptHit]) -> list[ConceptHit]:
    """The labelled hits with the concepts mostly for other people after the rest (kept:
    the order changes, not what is shown). A question's searches are merged first, by
    score: each search's own leader must be the concept nearest its words."""
    return sorted(hits, key=concept_place)


def _unit_place(unit_hit: UnitHit) -> tuple[int, int]:
    """For this person, for everyone, for someone else; among the units for this person,
    those naming more of what singles them out first ("if you claim Child Benefit" before
    "if you have a partner"); otherwise the order of similarity stands."""
    fit = unit_hit.fit
    return (_PLACE[fit.applies if fit else None], -len(fit.singling_out) if fit else 0)


def concept_place(hit: ConceptHit) -> int:
    """0 for a concept with a unit naming this person; 1 for one whose units are mostly for
    everyone; 2 for one whose units are mostly for other people (a concept with no unit
    shown counts as for everyone)."""
    fits = [u.fit.applies for u in hit.units if u.fit is not None]
    if True in fits:
        return 0
    return 2 if fits.count(False) > fits.count(None) else 1


def nothing_for_this_person(hits: list[ConceptHit]) -> bool:
    """The knowledge base answers the question only for other people: the concept answering
    it best (by score) has units and none answers this person, or its units nearest the
    question are other people's, or it is another nation's scheme; or most of the concepts
    found are for other people only. A unit answers a person when it is for them or for
    everyone; so does an eligibility rule that leaves them out by its own conditions ("you
    must be 18 or over but under 40": their answer is that they do not qualify), but not one
    of another nation's scheme (theirs has rules of its own)."""
    if not hits:
        return False
    best = max(hits, key=lambda hit: hit.score)
    if (
        (_for_others_only(best) and not _theirs_beside(best, _labelled(best), seen_first=hits[0]))
        or _nearest_for_others(best, seen_first=hits[0])
        or _another_nations_scheme(best, seen_first=hits[0])
    ):
        return True
    return sum(_for_others_only(hit) for hit in hits) * 2 > len(hits)


def _another_nations_scheme(hit: ConceptHit, *, seen_first: ConceptHit) -> bool:
    """The concept's eligibility rules require living in other nations ("you've lived or
    worked in England and Wales within the last 3 years", for someone in Northern Ireland) and
    neither it nor the concept shown first holds a unit from the same page for the person's
    own nation (their scheme instead, "In Scotland you can arrange a Debt Payment Programme"):
    the scheme described is not theirs."""
    pages = {
        u.unit.source_id
        for u in hit.units
        if u.unit.unit_type == "eligibility"
        and u.fit is not None
        and "nation" in u.fit.contradicted_on
        and not says_not_here(u.unit.text)  # "In Scotland you cannot get it": no requirement
    }
    theirs = any(
        u.fit is not None and u.fit.applies and "nation" in u.fit.matched_on
        for concept in (hit, seen_first)
        for u in concept.units
        if u.unit.source_id in pages
    )
    return bool(pages) and not theirs


# How many of a concept's units nearest the question speak for it.
_NEAREST = 2


def _nearest_for_others(hit: ConceptHit, *, seen_first: ConceptHit) -> bool:
    """The concept's units nearest the question are all for other people, and neither it
    nor the concept shown first holds one for this person on the same grounds (their nation,
    their work, ...): what it holds beside them is not this person's answer ("Claim by post"
    for England, Scotland and Wales, asked where to post the form from Northern Ireland; but
    for a Scottish user asking about PIP, "If you live in Scotland: apply for Adult Disability
    Payment instead" is)."""
    near = sorted(_labelled(hit), key=lambda u: -u.similarity)[:_NEAREST]
    if len(near) < _NEAREST or any(_answers_them(u) for u in near):
        return False
    return not _theirs_beside(hit, near, seen_first=seen_first)


def _theirs_beside(hit: ConceptHit, others: list[UnitHit], *, seen_first: ConceptHit) -> bool:
    """The concept, or the one shown first, holds a unit for this person on the grounds that
    make `others` other people's. Who pays National Insurance, asked by someone out of work,
    is the employees' and the self-employed's; "If you're not working: you can pay voluntary
    Class 3 contributions", shown first, is theirs."""
    grounds = set().union(*(u.fit.contradicted_on for u in others))
    return any(
        u.fit is not None and u.fit.applies and u.fit.matched_on & grounds
        for concept in (hit, seen_first)
        for u in concept.units
    )


def _labelled(hit: ConceptHit) -> list[UnitHit]:
    return [u for u in hit.units if u.fit is not None and not u.named_not_near]


def _for_others_only(hit: ConceptHit) -> bool:
    labelled = _labelled(hit)
    return bool(labelled) and not any(_answers_them(u) for u in labelled)


def _answers_them(unit_hit: UnitHit) -> bool:
    fit = unit_hit.fit
    if fit.applies is not False:
        return True
    other_nation = any(reason.startswith("for people living in") for reason in fit.contradicted)
    return unit_hit.unit.unit_type == "eligibility" and not other_nation
