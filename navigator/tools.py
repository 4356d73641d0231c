"""The tool definitions agents register (OpenAI function format), generated from the API's
request models: a parameter's type, bounds and description are written once, on the model
(`SearchParams`, `VerifyIn`), and the tools show only the parameters an agent needs. One
definition of each tool serves `GET /tools` and the MCP server (navigator.mcp)."""

from __future__ import annotations

from pydantic import BaseModel

from knowledge.models import Category
from navigator.schemas.search import QuestionIn, SearchIn
from navigator.schemas.suggest import SuggestIn
from navigator.schemas.verify import VerifyIn

SEARCH_TOOL_PARAMETERS = (
    "query",
    "conversation",
    "as_of",
    "categories",
    "include_historical",
    "min_review",
    "profile",
)
SUGGEST_TOOL_PARAMETERS = ("profile", "as_of", "k")
ANALYZE_TOOL_PARAMETERS = ("query", "conversation", "as_of", "profile")
VERIFY_TOOL_PARAMETERS = ("answer", "as_of", "cited_unit_ids", "conversation", "profile")

# JSON Schema keywords that say nothing to an agent choosing its arguments.
_NOT_FOR_AGENTS = {"title", "default"}


def search_tool_definition() -> dict:
    """The OpenAI tool that downstream agents register, describing what the KB covers."""
    names = ", ".join(Category.objects.order_by("order").values_list("name", flat=True))
    return _tool(
        "knowledgeBaseSearch",
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
        "say so rather than guessing.",
        SearchIn,
        SEARCH_TOOL_PARAMETERS,
    )


def verify_tool_definition() -> dict:
    """The OpenAI tool with which an agent checks its drafted answer before a user sees it."""
    return _tool(
        "knowledgeBaseVerify",
        "Check a drafted answer about UK personal finance against Navigator's knowledge base "
        "before showing it. Returns each claim with a verdict: supported (with a caveat when "
        "the figure is the newest held but its period has ended: say which period it is "
        "for), contradicted (with the value the knowledge base holds) or unsupported. Correct contradicted claims and do "
        "not state unsupported ones as fact.",
        VerifyIn,
        VERIFY_TOOL_PARAMETERS,
    )


def suggest_tool_definition() -> dict:
    """The OpenAI tool with which an agent learns what its user should know before asking."""
    return _tool(
        "knowledgeBaseSuggest",
        "Ask Navigator what a UK user should know about, from what you know of them (age, "
        "nation, income, work, partner, children's ages, benefits, student loan plan): the rules "
        "their life stage and situation call for, before they ask (turning 66, a new baby, "
        "starting university, high income with children). Each suggestion says why and carries "
        "its gov.uk facts with sources; mention them briefly, quoting the sources.",
        SuggestIn,
        SUGGEST_TOOL_PARAMETERS,
    )


def analyze_tool_definition() -> dict:
    """The OpenAI tool with which an agent asks whether a turn needs a lookup at all, and how
    the knowledge base would understand it."""
    return _tool(
        "knowledgeBaseAnalyze",
        "Ask Navigator how it understands a user's turn before searching: whether it needs a "
        "lookup at all (strategy 'none', with the reason in no_lookup: small talk, a request "
        "to restate the answer, arithmetic, the user's own plan or app, money in general, "
        "another country's rules), the follow-up rewritten to stand alone, the searches a "
        "broad situation expands into, the date asked about and the profile used. A cheap "
        "first check; knowledgeBaseSearch makes the same analysis itself.",
        QuestionIn,
        ANALYZE_TOOL_PARAMETERS,
    )


def tool_definitions() -> list[dict]:
    """Every tool, as `GET /tools` and the MCP server list them."""
    return [
        search_tool_definition(),
        analyze_tool_definition(),
        verify_tool_definition(),
        suggest_tool_definition(),
    ]


def _tool(name: str, description: str, model: type[BaseModel], fields: tuple[str, ...]) -> dict:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": tool_parameters(model, fields),
        },
    }


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
