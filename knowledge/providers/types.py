"""The one door to chat language models, and the provider interface for extraction,
superseding adjudication, the quality job's placement check and bootstrap proposals.

Two providers answer the same questions: `openai` (any OpenAI-compatible endpoint, with
structured outputs) and `heuristic` (offline and deterministic, in knowledge.providers.heuristic;
everything it makes is labelled provider=heuristic). Prompts are versioned files in
knowledge/providers/prompts/. Bootstrap proposals are the one question only `openai` answers here: the
heuristic bootstrap reads stored pages as a whole and lives in curation.bootstrap.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Literal, Protocol

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from knowledge.validation import first_error

PROMPT_VERSION = "v1"
PROMPTS = Path(__file__).resolve().parent / "prompts"

UnitType = Literal["rule", "threshold", "definition", "procedure", "eligibility", "example"]
ValueUnit = Literal["GBP", "percent", "count", "years", "weeks", "days", "hours"]
ValuePeriod = Literal["year", "month", "four_weeks", "week", "day", "hour", "one_off"]


class ProviderError(Exception):
    """The provider's answer cannot be used (invalid JSON, wrong shape, refused request)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class ProviderTransientError(ProviderError):
    """Rate limits, server errors or timeouts that outlasted the bounded retries."""


# --- what providers answer ------------------------------------------------------------------


class PageContext(BaseModel):
    model_config = ConfigDict(extra="forbid")

    domain: str
    audience: str
    period: str | None
    category: str
    related_categories: list[str]


class LlmUnit(BaseModel):
    model_config = ConfigDict(extra="forbid")

    unit_type: UnitType
    text: str = Field(min_length=1)
    concept_id: str | None
    evidence_quote: str = Field(min_length=1)
    valid_from: str | None
    valid_to: str | None
    value_amount: float | None
    value_unit: ValueUnit | None
    value_period: ValuePeriod | None
    example_of: int | None


class LlmUnits(BaseModel):
    model_config = ConfigDict(extra="forbid")

    units: list[LlmUnit]


def _a_share(value: float) -> float:
    # Kept out of the JSON schema (strict outputs reject bounds on some endpoints).
    if not 0 <= value <= 1:
        raise ValueError("confidence must be between 0 and 1")
    return value


Share = Annotated[float, AfterValidator(_a_share)]


class LlmAdjudication(BaseModel):
    """The model's verdict on two units. It says nothing about which one is newer: the
    detector decides that from dates, never from the model."""

    model_config = ConfigDict(extra="forbid")

    same_rule: bool
    confidence: Share
    rationale: str = Field(min_length=1)


class LlmPlacement(BaseModel):
    """The model's view of one unit: does it belong to its concept, or to one of the
    alternatives listed (by taxonomy id)?"""

    model_config = ConfigDict(extra="forbid")

    belongs: bool
    suggested_concept: str | None
    confidence: Share
    reason: str = Field(min_length=1)


# Items are unchecked on purpose (no pattern or length here): a bad item is dropped and
# counted by the caller, not a reason to throw the whole answer away.
class LlmProposedConcept(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id_suffix: str
    name: str
    description: str


class LlmConceptProposals(BaseModel):
    model_config = ConfigDict(extra="forbid")

    concepts: list[LlmProposedConcept]


@dataclass
class UnitProposal:
    """One proposed unit, before validation. Dates are ISO strings as the provider said."""

    unit_type: str
    text: str
    concept_id: str | None
    evidence_quote: str
    valid_from: str | None = None
    valid_to: str | None = None
    value_amount: Decimal | None = None
    value_unit: str | None = None
    value_period: str | None = None
    example_of: int | None = None
    validity_basis: str = ""
    section: str = ""  # heading path, a hint for binding
    candidates: list[tuple[str, float]] = field(default_factory=list)

    def as_json(self) -> dict:
        data = {k: v for k, v in self.__dict__.items() if k != "candidates"}
        data["value_amount"] = None if self.value_amount is None else str(self.value_amount)
        data["candidates"] = [[concept, round(score, 4)] for concept, score in self.candidates]
        return data


@dataclass(frozen=True)
class Usage:
    model: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass(frozen=True)
class PageInput:
    title: str
    url: str
    document_type: str
    text: str
    sections: list[dict]
    period_hint: str
    public_updated_at: dt.datetime | None


@dataclass(frozen=True)
class ConceptInfo:
    taxonomy_id: str
    name: str
    description: str
    category: str
    vector: tuple[float, ...] | None = None


@dataclass(frozen=True)
class CategoryInfo:
    slug: str
    name: str
    description: str


@dataclass(frozen=True)
class UnitText:
    """What an adjudicator sees of one unit."""

    unit_type: str
    text: str
    concept: str = ""  # "taxonomy_id: name"
    value_amount: Decimal | None = None
    value_unit: str = ""
    value_period: str = ""
    valid_from: dt.date | None = None
    valid_to: dt.date | None = None
    source_url: str = ""
    vector: tuple[float, ...] | None = None  # the heuristic placement check compares these


@dataclass(frozen=True)
class PageDigest:
    """What a bootstrap proposer reads of one page: its headings and the start of its text."""

    title: str
    url: str
    headings: list[str]
    excerpt: str


@dataclass(frozen=True)
class Adjudication:
    """Are two units the same rule at different times? `confidence` is in 0..1."""

    same_rule: bool
    confidence: float
    rationale: str
    usage: Usage = field(default_factory=Usage)


@dataclass(frozen=True)
class Placement:
    """Does a unit belong to its concept? `suggested` is the taxonomy id of one of the
    alternatives the checker was given (None when the unit belongs, or fits none of them);
    `confidence` is in 0..1; `margin` is how much nearer the suggestion's vector is than the
    concept's (the heuristic's evidence; None from an LLM)."""

    belongs: bool
    suggested: str | None
    reason: str
    confidence: float
    usage: Usage = field(default_factory=Usage)
    margin: float | None = None


@dataclass(frozen=True)
class ProposedConcept:
    """One concept an LLM proposes, as it said it: `id_suffix` is the taxonomy id without the
    category's prefix. Not validated yet."""

    id_suffix: str
    name: str
    description: str


class Provider(Protocol):
    name: str
    prompt_version: str

    def page_context(
        self, *, page: PageInput, categories: list[CategoryInfo], concepts: list[ConceptInfo]
    ) -> tuple[PageContext, Usage]: ...

    def extract_units(
        self, *, page: PageInput, context: PageContext, concepts: list[ConceptInfo]
    ) -> tuple[list[UnitProposal], Usage]: ...

    def adjudicate_superseding(self, *, older: UnitText, newer: UnitText) -> Adjudication: ...

    def check_unit_placement(
        self, *, unit: UnitText, concept: ConceptInfo, alternatives: list[ConceptInfo]
    ) -> Placement: ...


def get_provider(name: str | None = None) -> Provider:
    from django.conf import settings

    name = name or settings.LLM_PROVIDER
    if name == "heuristic":
        from knowledge.providers.heuristic import HeuristicProvider

        return HeuristicProvider()
    if name == "openai":
        return OpenAIProvider.from_settings()
    raise ProviderError(f"unknown provider {name!r}: use heuristic or openai")


# --- prompts ----------------------------------------------------------------------------------


def prompt_template(name: str, version: str = PROMPT_VERSION) -> str:
    return (PROMPTS / f"{name}.{version}.md").read_text(encoding="utf-8")


def context_prompt(*, page: PageInput, categories: list[CategoryInfo]) -> str:
    listing = "\n".join(f"{c.slug}: {c.name} — {c.description}" for c in categories)
    return prompt_template("page_context").format(
        categories=listing, title=page.title, url=page.url, text=page.text
    )


def units_prompt(*, page: PageInput, context: PageContext, concepts: list[ConceptInfo]) -> str:
    listing = "\n".join(f"{c.taxonomy_id}: {c.name} — {c.description}" for c in concepts)
    return prompt_template("extract_units").format(
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


def strict_schema(model: type[BaseModel]) -> dict:
    """Pydantic's JSON schema made acceptable to strict structured outputs: every property
    required (nullable ones included) and no additional properties, at every level."""
    schema = model.model_json_schema()

    def tighten(node):
        # `node` is a schema here; the values of "properties" and "$defs" are maps of names
        # to schemas, whose keys ("title", "default", ...) must be kept, not stripped.
        if isinstance(node, dict):
            if node.get("type") == "object" and "properties" in node:
                node["required"] = list(node["properties"])
                node["additionalProperties"] = False
            node.pop("default", None)
            node.pop("title", None)
            for key, value in node.items():
                if key in _SCHEMA_MAPS and isinstance(value, dict):
                    for member in value.values():
                        tighten(member)
                else:
                    tighten(value)
        elif isinstance(node, list):
            for value in node:
                tighten(value)

    tighten(schema)
    return schema


_SCHEMA_MAPS = {"properties", "$defs", "definitions", "patternProperties"}


# --- the OpenAI-compatible provider ----------------------------------------------------------


class OpenAIProvider:
    name = "openai"
    prompt_version = PROMPT_VERSION

    # The placement check is a judgement between given options, like adjudication, and
    # uses that model; bootstrap reads page text, like extraction, and uses that one.
    def __init__(
        self, *, client, context_model: str, extract_model: str, adjudicate_model: str = ""
    ):
        self.client = client
        self.context_model = context_model
        self.extract_model = extract_model
        self.adjudicate_model = adjudicate_model or extract_model

    @classmethod
    def from_settings(cls) -> OpenAIProvider:
        from django.conf import settings
        from openai import OpenAI

        client = OpenAI(
            base_url=settings.LLM_BASE_URL,
            api_key=settings.LLM_API_KEY or "missing-key",
            timeout=settings.LLM_TIMEOUT_SECONDS,
            max_retries=settings.LLM_MAX_RETRIES,
        )
        return cls(
            client=client,
            context_model=settings.LLM_MODEL_CONTEXT,
            extract_model=settings.LLM_MODEL_EXTRACT,
            adjudicate_model=settings.LLM_MODEL_ADJUDICATE,
        )

    def page_context(self, *, page, categories, concepts):
        prompt = context_prompt(page=page, categories=categories)
        return self._structured(prompt, PageContext, model=self.context_model)

    def extract_units(self, *, page, context, concepts):
        prompt = units_prompt(page=page, context=context, concepts=concepts)
        answer, usage = self._structured(prompt, LlmUnits, model=self.extract_model)
        proposals = [
            UnitProposal(
                unit_type=unit.unit_type,
                text=unit.text,
                concept_id=unit.concept_id,
                evidence_quote=unit.evidence_quote,
                valid_from=unit.valid_from,
                valid_to=unit.valid_to,
                value_amount=None if unit.value_amount is None else Decimal(str(unit.value_amount)),
                value_unit=unit.value_unit,
                value_period=unit.value_period,
                example_of=unit.example_of,
                validity_basis="stated by the model",
            )
            for unit in answer.units
        ]
        return proposals, usage

    def adjudicate_superseding(self, *, older: UnitText, newer: UnitText) -> Adjudication:
        prompt = adjudicate_prompt(older=older, newer=newer)
        answer, usage = self._structured(prompt, LlmAdjudication, model=self.adjudicate_model)
        return Adjudication(
            same_rule=answer.same_rule,
            confidence=answer.confidence,
            rationale=answer.rationale,
            usage=usage,
        )

    def check_unit_placement(
        self, *, unit: UnitText, concept: ConceptInfo, alternatives: list[ConceptInfo]
    ) -> Placement:
        """Raises ProviderError when the model suggests a concept it was not offered."""
        prompt = placement_prompt(unit=unit, concept=concept, alternatives=alternatives)
        answer, usage = self._structured(prompt, LlmPlacement, model=self.adjudicate_model)
        offered = {c.taxonomy_id for c in alternatives}
        if answer.suggested_concept is not None and answer.suggested_concept not in offered:
            raise ProviderError(
                f"the LLM suggested concept {answer.suggested_concept!r}, which is not one of "
                f"the alternatives it was given ({', '.join(sorted(offered)) or 'none'})"
            )
        return Placement(
            belongs=answer.belongs,
            suggested=None if answer.belongs else answer.suggested_concept,
            reason=answer.reason,
            confidence=answer.confidence,
            usage=usage,
        )

    def propose_concepts(
        self, *, category: CategoryInfo, pages: list[PageDigest], existing: list[str], limit: int
    ) -> tuple[list[ProposedConcept], Usage]:
        """The concepts as the model proposed them: the caller validates each one."""
        prompt = bootstrap_prompt(category=category, pages=pages, existing=existing, limit=limit)
        answer, usage = self._structured(prompt, LlmConceptProposals, model=self.extract_model)
        proposals = [
            ProposedConcept(id_suffix=c.id_suffix, name=c.name, description=c.description)
            for c in answer.concepts
        ]
        return proposals, usage

    def _structured(self, prompt: str, schema: type[BaseModel], *, model: str):
        import openai

        try:
            completion = self.client.chat.completions.create(
                model=model,
                messages=[{"role": "user", "content": prompt}],
                response_format={
                    "type": "json_schema",
                    "json_schema": {
                        "name": schema.__name__,
                        "schema": strict_schema(schema),
                        "strict": True,
                    },
                },
                temperature=0,
            )
        except openai.APITimeoutError as exc:
            raise ProviderTransientError("the LLM endpoint timed out (APITimeoutError)") from exc
        except openai.APIConnectionError as exc:
            raise ProviderTransientError(f"{type(exc).__name__} from the LLM endpoint") from exc
        except openai.RateLimitError as exc:
            raise ProviderTransientError(
                "the LLM endpoint kept answering 429 (rate limited)"
            ) from exc
        except openai.APIStatusError as exc:
            kind = ProviderTransientError if exc.status_code >= 500 else ProviderError
            detail = _error_detail(exc)
            raise kind(
                f"the LLM endpoint answered HTTP {exc.status_code}"
                + (f": {detail}" if detail else "")
            ) from exc
        except openai.APIError as exc:  # e.g. a response that fails the client's validation
            raise ProviderError(f"the LLM endpoint's response is unusable: {exc}") from exc
        except ValueError as exc:  # a 200 whose body claims to be JSON but is not
            raise ProviderError(
                f"the LLM endpoint answered with a body that is not valid JSON: {exc}"
            ) from exc
        if not hasattr(completion, "choices"):
            # The client hands back the bare text (or list) when a 200 is not a JSON object.
            raise ProviderError(
                "the LLM endpoint answered with something other than a chat completion: "
                f"{str(completion)[:200]!r}"
            )
        usage = Usage(
            model=getattr(completion, "model", None) or model,
            prompt_tokens=getattr(completion.usage, "prompt_tokens", 0) or 0,
            completion_tokens=getattr(completion.usage, "completion_tokens", 0) or 0,
        )
        return parse_answer(completion, schema), usage


def _error_detail(exc) -> str:
    """The message an OpenAI-style error body carries ({"error": {"message": ...}})."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error", body)
        message = error.get("message") if isinstance(error, dict) else error
        if message:
            return str(message)[:300]
    return ""


def parse_answer(completion, schema: type[BaseModel]):
    if not completion.choices:
        raise ProviderError("the LLM answer has no choices")
    message = getattr(completion.choices[0], "message", None)
    if getattr(message, "refusal", None):
        raise ProviderError(f"the model refused: {message.refusal}")
    content = getattr(message, "content", None)
    if not isinstance(content, str):
        raise ProviderError("the LLM answer has no text content")
    try:
        data = json.loads(content)
    except json.JSONDecodeError as exc:
        raise ProviderError(f"the LLM answer is not valid JSON: {exc.msg} at {exc.pos}") from None
    try:
        return schema.model_validate(data)
    except ValidationError as exc:
        raise ProviderError(
            f"the LLM answer does not match the schema: {first_error(exc)}"
        ) from None
