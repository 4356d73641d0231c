"""The recommended system prompt for an assistant that uses Navigator's tools, versioned in
the repository (navigator/prompts/assistant-vN.md) and served beside the tool definitions
(`GET /tools`, and the MCP server's prompt); and the stand-ins for an assistant's other
tools with which the calling decision is measured (`eval_tool_calls --router openai`)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

ASSISTANT_PROMPT_VERSION = "v1"
_PROMPTS = Path(__file__).resolve().parent / "prompts"


@cache
def assistant_prompt() -> str:
    return (_PROMPTS / f"assistant-{ASSISTANT_PROMPT_VERSION}.md").read_text(encoding="utf-8")


def _stand_in(name: str, description: str, properties: dict) -> dict:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": list(properties),
                "additionalProperties": False,
            },
        },
    }


# What else a personal-finance assistant can do: a model choosing between these and the
# knowledge base shows whether it calls the knowledge base when it should, and only then.
STAND_IN_TOOLS = (
    _stand_in(
        "calculator",
        "Evaluate an arithmetic expression.",
        {"expression": {"type": "string", "description": "e.g. '1250 / 12'"}},
    ),
    _stand_in(
        "get_user_plan",
        "Read the user's own financial plan in this app: budgets, spending by category, "
        "savings goals and pots, accounts and transactions.",
        {"what": {"type": "string", "description": "what to read, e.g. 'groceries budget'"}},
    ),
    _stand_in(
        "web_search",
        "Search the web for general information.",
        {"query": {"type": "string"}},
    ),
    _stand_in(
        "update_profile",
        "Record a fact the user states about themselves (age, nation, income, work, family).",
        {"field": {"type": "string"}, "value": {"type": "string"}},
    ),
)
