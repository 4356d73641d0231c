"""The versioned prompt files beside this module, filled in for each question. A prompt's
wording changes only with a new version file, so a run's prompt version names its text."""

from __future__ import annotations

from pathlib import Path

from knowledge.domain.extraction import CategoryInfo, ConceptInfo, PageDigest, PageInput, UnitText
from knowledge.domain.questions import ConversationTurn, QueryVocabulary
from knowledge.providers.types import PageContext

PROMPT_VERSION = "v2"
# The units prompt moved on alone (the period each fact states and why); an extraction run's
# version is this one's, the context prompt it follows being PROMPT_VERSION's.
EXTRACT_PROMPT_VERSION = "v5"  # v4: who each fact is for (applies_to); v5: tax bands
ANALYSIS_PROMPT_VERSION = "v1"
JUDGE_PROMPT_VERSION = "v1"
PROMPTS = Path(__file__).resolve().parent


def prompt_template(name: str, version: str = PROMPT_VERSION) -> str:
    return (PROMPTS / f"{name}.{version}.md").read_text(encoding="utf-8")


def context_prompt(*, page: PageInput, categories: list[CategoryInfo]) -> str:
    listing = "\n".join(f"{c.slug}: {c.name} — {c.description}" for c in categories)
    return prompt_template("page_context").format(
        categories=listing, title=page.title, url=page.url, text=page.text
    )


def units_prompt(*, page: PageInput, context: PageContext, concepts: list[ConceptInfo]) -> str:
    listing = "\n".join(f"{c.taxonomy_id}: {c.name} — {c.description}" for c in concepts)
    return prompt_template("extract_units", EXTRACT_PROMPT_VERSION).format(
        context=context.model_dump_json(), concepts=listing, title=page.title, text=page.text
    )


def adjudicate_prompt(*, older: UnitText, newer: UnitText) -> str:
    return prompt_template("adjudicate").format(
        concept=older.concept or newer.concept, older=_unit_block(older), newer=_unit_block(newer)
    )


def placement_prompt(
    *, unit: UnitText, concept: ConceptInfo, alternatives: list[ConceptInfo]
) -> str:
    return prompt_template("placement").format(
        category=concept.category,
        concept=_concept_line(concept),
        unit=_unit_block(unit),
        alternatives="\n".join(_concept_line(c) for c in alternatives),
    )


def bootstrap_prompt(
    *, category: CategoryInfo, pages: list[PageDigest], existing: list[str], limit: int
) -> str:
    return prompt_template("bootstrap").format(
        category=f"{category.slug}: {category.name} — {category.description}",
        limit=limit,
        existing="\n".join(existing) or "(none yet)",
        pages="\n\n".join(_page_block(page) for page in pages),
    )


def analysis_prompt(
    *, query: str, conversation: list[ConversationTurn], vocabulary: QueryVocabulary, today
) -> str:
    turns = "\n".join(f"{turn.role}: {turn.content}" for turn in conversation) or "(none)"
    return prompt_template("analyse_query", ANALYSIS_PROMPT_VERSION).format(
        today=today.isoformat(),
        categories="\n".join(
            f"{c.slug}: {c.name} — {c.description}" for c in vocabulary.categories
        ),
        life_events="\n".join(f"{e.name}: {'; '.join(e.searches)}" for e in vocabulary.life_events),
        conversation=turns,
        query=query,
    )


def judge_prompt(*, claim: str, sentence: str, day, facts: list[UnitText]) -> str:
    numbered = "\n\n".join(
        f"[{number}] " + _unit_block(fact).replace("\n", "\n    ")
        for number, fact in enumerate(facts, start=1)
    )
    return prompt_template("judge_claim", JUDGE_PROMPT_VERSION).format(
        day=day.isoformat(), sentence=sentence, claim=claim, facts=numbered or "(none found)"
    )


def _concept_line(concept: ConceptInfo) -> str:
    return f"{concept.taxonomy_id}: {concept.name} — {concept.description}"


def _page_block(page: PageDigest) -> str:
    headings = "; ".join(page.headings) or "(none)"
    return f"Page: {page.title}\nAddress: {page.url}\nHeadings: {headings}\nText: {page.excerpt}"


def _unit_block(unit: UnitText) -> str:
    lines = [f"type: {unit.unit_type}", f"text: {unit.text}"]
    if unit.value_amount is not None:
        period = f" per {unit.value_period.replace('_', ' ')}" if unit.value_period else ""
        lines.append(f"value: {unit.value_amount.normalize():f} {unit.value_unit}{period}")
    lines.append(f"valid from: {unit.valid_from or 'not stated'}")
    lines.append(f"valid to: {unit.valid_to or 'not stated'}")
    if unit.source_url:
        lines.append(f"source: {unit.source_url}")
    return "\n".join(lines)
