"""The tools agents call, in one table every consumer reads: `GET /tools` lists their
definitions (OpenAI function format), the JSON API serves each at its path (navigator.api)
and the MCP server lists and calls them (navigator.mcp). A tool's parameters are generated
from its request model (a type, bound and description is written once, on the model) and
show only the fields an agent needs; MCP accepts no others. Adding a tool is one entry."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from knowledge.models import Category
from navigator import answers
from navigator.schemas.search import AnalysisOut, QuestionIn, SearchIn, SearchOut
from navigator.schemas.suggest import SuggestIn, SuggestOut
from navigator.schemas.verify import VerifyIn, VerifyOut

# JSON Schema keywords that say nothing to an agent choosing its arguments.
_NOT_FOR_AGENTS = {"title", "default"}


@dataclass(frozen=True)
class Tool:
    """`description` tells an agent when and how to call it (a function for a description
    read from the database); `fields`, the fields of `request` it publishes; `answer`, the
    body and the log row's fields for a validated request; `response`, the body's shape,
    which the body passes through as the API's response schema passes it unless
    `built_exact` (the answer builds exactly that shape: sent without validating it again).
    `path`, `summary`, `doc` and `errors` (the refusals it declares): its JSON API endpoint."""

    name: str
    description: str | Callable[[], str]
    request: type[BaseModel]
    fields: tuple[str, ...]
    answer: Callable[[Any], tuple[dict, dict]]
    response: type[BaseModel]
    path: str
    summary: str
    doc: str
    built_exact: bool = False
    errors: tuple[int, ...] = (422,)

    def __post_init__(self) -> None:
        unknown = [name for name in self.fields if name not in self.request.model_fields]
        hidden = [
            name
            for name, field in self.request.model_fields.items()
            if field.is_required() and name not in self.fields
        ]
        if unknown or hidden:
            raise ValueError(
                f"{self.name}: unknown fields {unknown}, required unpublished {hidden}"
            )

    def definition(self) -> dict:
        description = self.description if isinstance(self.description, str) else self.description()
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": description,
                "parameters": tool_parameters(self.request, self.fields),
            },
        }

    def arguments(self, given: dict) -> BaseModel:
        """`given` read into the request model; ValidationError for a field the tool does not
        publish, as an extra input, as the JSON API's request models refuse one."""
        unpublished = [
            {"type": "extra_forbidden", "loc": (name,), "input": value}
            for name, value in given.items()
            if name not in self.fields
        ]
        if unpublished:
            raise ValidationError.from_exception_data(self.request.__name__, unpublished)
        return self.request.model_validate(given)


def _search_description() -> str:
    names = ", ".join(Category.objects.order_by("order").values_list("name", flat=True))
    return (
        "Search Navigator, a citation-grounded knowledge base of UK personal-finance rules "
        f"taken from gov.uk, for facts with their sources and validity dates. Covers: {names}. "
        "Use it instead of memory for any UK figure, threshold, eligibility rule or procedure; "
        "quote the returned sources. An outcome of 'outdated' means the facts returned are "
        "the newest the knowledge base holds but their period has ended (each unit says when): "
        "give them as the newest figures held, for the period they cover, never as this year's. "
        "With min_review 'signed_off' only facts a domain expert signed off or corrected are "
        "returned; an outcome of 'not_reviewed' then means the knowledge base holds facts for "
        "the question but none reviewed yet. "
        "Any other outcome but 'ok' means the knowledge base does not hold a reliable answer: "
        "say so rather than guessing."
    )


TOOLS = (
    Tool(
        name="knowledgeBaseSearch",
        description=_search_description,
        request=SearchIn,
        fields=(
            "query",
            "conversation",
            "as_of",
            "categories",
            "include_historical",
            "min_review",
            "profile",
        ),
        answer=answers.search_answer,
        response=SearchOut,
        built_exact=True,  # the presenter builds SearchOut's every field (a test holds it to it)
        path="/search",
        summary="Search concepts",
        doc="Concepts that answer the query, their units grouped by source, citations, a "
        "context string within the token budget, and a typed outcome (`ok`, `outdated`, "
        '`low_confidence`, `not_reviewed`, `no_match`). With `min_review: "signed_off"` only '
        "units an expert signed off or corrected are served, and `not_reviewed` says facts "
        "are held but none reviewed.\n\n"
        "The query is analysed first (`analysis` says how): a follow-up is understood from "
        "`conversation`, abbreviations are expanded, a date in the words sets `as_of` when "
        "none is sent, and a broad life situation is searched as several specific questions, "
        "merged.",
        errors=(400, 422),
    ),
    Tool(
        name="knowledgeBaseAnalyze",
        description="Ask Navigator how it understands a user's turn before searching: whether "
        "it needs a lookup at all (strategy 'none', with the reason in no_lookup: small talk, "
        "a request to restate the answer, arithmetic, the user's own plan or app, money in "
        "general, another country's rules), the follow-up rewritten to stand alone, the "
        "searches a broad situation expands into, the date asked about and the profile used. "
        "A cheap first check; knowledgeBaseSearch makes the same analysis itself.",
        request=QuestionIn,
        fields=("query", "conversation", "as_of", "profile"),
        answer=answers.analyze_answer,
        response=AnalysisOut,
        path="/analyze",
        summary="How a question is understood",
        doc="The analysis a search would make of the query, without searching: turn type, "
        "scope, topic shift, entities, the standalone rewrite, the strategy (`none`, with the "
        "reason in `no_lookup`, when the turn needs no lookup: a cheap first check for an "
        "assistant deciding whether to call the knowledge base), the searches it expands "
        "into, the date it is asked about and the profile it would use.",
    ),
    Tool(
        name="knowledgeBaseVerify",
        description="Check a drafted answer about UK personal finance against Navigator's "
        "knowledge base before showing it. Returns each claim with a verdict: supported (with "
        "a caveat when the figure is the newest held but its period has ended: say which "
        "period it is for), contradicted (with the value the knowledge base holds) or "
        "unsupported. Correct contradicted claims and do not state unsupported ones as fact.",
        request=VerifyIn,
        fields=("answer", "as_of", "cited_unit_ids", "conversation", "profile"),
        answer=answers.verify_answer,
        response=VerifyOut,
        path="/verify",
        summary="Check a drafted answer's claims",
        doc="The answer split into claims, each with a verdict (`supported`, `contradicted`, "
        "`unsupported`), a typed reason, the units that decide it and, for a contradiction, "
        "the value the knowledge base holds. Amounts, rates, periods and dates are compared "
        "exactly.",
    ),
    Tool(
        name="knowledgeBaseSuggest",
        description="Ask Navigator what a UK user should know about, from what you know of "
        "them (age, nation, income, work, partner, children's ages, benefits, student loan "
        "plan): the rules their life stage and situation call for, before they ask (turning "
        "66, a new baby, starting university, high income with children). Each suggestion "
        "says why and carries its gov.uk facts with sources; mention them briefly, quoting "
        "the sources.",
        request=SuggestIn,
        fields=("profile", "as_of", "k"),
        answer=answers.suggest_answer,
        response=SuggestOut,
        path="/suggest",
        summary="What this person should know",
        doc="The concepts this person should know about before they ask, from their profile: "
        "the life stages they are in (a new baby, starting university, approaching State "
        "Pension age) and the facts narrowed to people like them (their income band, "
        "benefits, work, children, loan plan, a devolved nation), each with the reasons it "
        "was suggested and its units.",
    ),
)
TOOL_BY_NAME = {tool.name: tool for tool in TOOLS}


def tool_definitions() -> list[dict]:
    """Every tool, as `GET /tools` and the MCP server list them."""
    return [tool.definition() for tool in TOOLS]


def tool_parameters(model: type[BaseModel], fields: tuple[str, ...]) -> dict:
    """The JSON schema of `fields` of `model`, self-contained (no $ref), an optional value
    shown as its type alone (an agent omits what it does not send)."""
    schema = model.model_json_schema()
    definitions = schema.get("$defs", {})
    return {
        "type": "object",
        "properties": {
            name: _for_agents(schema["properties"][name], definitions) for name in fields
        },
        "required": [name for name in schema.get("required", []) if name in fields],
        "additionalProperties": False,
    }


def _for_agents(node, definitions: dict):
    if isinstance(node, list):
        return [_for_agents(item, definitions) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        resolved = definitions[node["$ref"].rsplit("/", 1)[-1]]
        return _for_agents(
            {**resolved, **{k: v for k, v in node.items() if k != "$ref"}}, definitions
        )
    branches = [b for b in node.get("anyOf", []) if b != {"type": "null"}]
    if "anyOf" in node and len(branches) == 1:
        rest = {k: v for k, v in node.items() if k != "anyOf"}
        return _for_agents({**branches[0], **rest}, definitions)
    shown = {k: _for_agents(v, definitions) for k, v in node.items() if k not in _NOT_FOR_AGENTS}
    if shown.get("type") == "object" and "properties" in shown:
        shown.setdefault("additionalProperties", False)
    return shown
