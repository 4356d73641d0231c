"""The MCP server at /mcp, driven by the official SDK's own client over real HTTP (pytest-
django's live server): initialise, list the tools and the prompt, call each tool, bad
arguments, and the API's tokens (none, a bad one, a revoked one). A search through MCP
answers what the JSON API answers for the same input."""

from __future__ import annotations

import json

import anyio
import httpx
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from knowledge.models import Source
from navigator.api import api
from navigator.assistant import assistant_prompt
from navigator.models import QueryLog
from navigator.services import api_token_create, api_token_revoke
from navigator.tools import TOOLS
from tests.navigator.conftest import knowledge_base_build

PAGES = ("individual-savings-accounts", "lifetime-isa")
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    },
}


@pytest.fixture
def live_kb(transactional_db):
    """The taxonomy and two fixture pages, committed where the live server sees them."""
    knowledge_base_build(PAGES)
    assert Source.objects.count() == len(PAGES)


def session(url: str, token: str | None) -> Client:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    http = create_mcp_http_client(headers=headers)
    return Client(streamable_http_client(f"{url}/mcp", http_client=http))


def calls(url: str, token: str, work):
    """`work(client)` in an MCP session, its result returned to the (synchronous) test."""

    async def main():
        async with session(url, token) as client:
            return await work(client)

    return anyio.run(main)


def without_timings(body: dict) -> dict:
    body = {k: v for k, v in body.items() if k != "timings_ms"}
    if "analysis" in body:
        body["analysis"] = {k: v for k, v in body["analysis"].items() if k != "timings_ms"}
    return body


def test_the_tools_and_the_prompt_are_those_of_get_tools(live_server, live_kb, client):
    _, raw = api_token_create(name="agent")

    async def work(mcp):
        return (
            await mcp.list_tools(),
            await mcp.list_prompts(),
            await mcp.get_prompt("navigator_assistant"),
        )

    tools, prompts, prompt = calls(live_server.url, raw, work)
    published = client.get("/api/v1/tools").json()
    assert [
        {"name": t.name, "description": t.description, "parameters": t.input_schema}
        for t in tools.tools
    ] == [tool["function"] for tool in published["tools"]]
    assert [p.name for p in prompts.prompts] == ["navigator_assistant"]
    assert prompt.messages[0].content.text == assistant_prompt() == published["system_prompt"]


def test_mcp_get_tools_and_the_json_api_read_one_registry(live_server, transactional_db, client):
    _, raw = api_token_create(name="agent")
    listed = calls(live_server.url, raw, lambda mcp: mcp.list_tools()).tools
    published = client.get("/api/v1/tools").json()["tools"]
    assert [t.name for t in listed] == [tool.name for tool in TOOLS]
    assert [
        {"name": t.name, "description": t.description, "parameters": t.input_schema} for t in listed
    ] == [definition["function"] for definition in published]
    assert published == [tool.definition() for tool in TOOLS]
    for tool in TOOLS:
        (operation,) = api.default_router.path_operations[tool.path].operations
        (body,) = operation.models
        assert body.model_fields["payload"].annotation is tool.request, tool.name


def test_a_field_a_tool_does_not_publish_is_refused_by_name(live_server, transactional_db):
    """As the JSON API refuses an unknown field: token_budget is a field of the search's
    request model that its tool does not show, shoe_size a field of none, and a turn of the
    conversation has only role and content."""
    _, raw = api_token_create(name="agent")

    async def work(mcp):
        return [
            await mcp.call_tool("knowledgeBaseSearch", {"query": "ISA", "token_budget": 100}),
            await mcp.call_tool(
                "knowledgeBaseVerify", {"answer": "The ISA allowance is £20,000.", "shoe_size": 9}
            ),
            await mcp.call_tool(
                "knowledgeBaseAnalyze",
                {
                    "query": "and a Junior one?",
                    "conversation": [{"role": "user", "content": "ISA?", "name": "Ann"}],
                },
            ),
        ]

    hidden, unknown, in_turn = calls(live_server.url, raw, work)
    assert hidden.is_error and unknown.is_error and in_turn.is_error
    assert (
        hidden.content[0].text == "invalid arguments: token_budget: Extra inputs are not permitted"
    )
    assert unknown.content[0].text == "invalid arguments: shoe_size: Extra inputs are not permitted"
    assert in_turn.content[0].text == (
        "invalid arguments: conversation.0.name: Extra inputs are not permitted"
    )
    rows = QueryLog.objects.filter(status_code=422).order_by("pk")
    assert [row.endpoint for row in rows] == [
        "/mcp/knowledgeBaseSearch",
        "/mcp/knowledgeBaseVerify",
        "/mcp/knowledgeBaseAnalyze",
    ]
    assert "token_budget" in rows[0].error


def test_a_search_through_mcp_answers_what_the_json_api_answers(live_server, live_kb, client):
    token, raw = api_token_create(name="agent")
    arguments = {
        "query": "How much can I pay into a Lifetime ISA?",
        "profile": {"age": 30, "nation": "wales"},
    }
    result = calls(
        live_server.url, raw, lambda mcp: mcp.call_tool("knowledgeBaseSearch", arguments)
    )
    assert not result.is_error
    over_mcp = json.loads(result.content[0].text)
    assert result.structured_content == over_mcp
    over_api = client.post(
        "/api/v1/search",
        json.dumps(arguments),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {raw}",
    ).json()
    assert over_mcp["outcome"] == "ok" and over_mcp["concepts"]
    import difflib

    a = json.dumps(without_timings(over_mcp), indent=1, sort_keys=True).splitlines()
    b = json.dumps(without_timings(over_api), indent=1, sort_keys=True).splitlines()
    print("\n".join(list(difflib.unified_diff(a, b))[:60]))
    assert without_timings(over_mcp) == without_timings(over_api)
    row = QueryLog.objects.get(endpoint="/mcp/knowledgeBaseSearch")
    assert row.token_id == token.pk and row.outcome == "ok"
    assert row.params["profile_fields"] == ["age", "nation"] and "wales" not in str(row.params)


def test_each_tool_answers_and_bad_arguments_are_a_tool_error(live_server, live_kb):
    _, raw = api_token_create(name="agent")

    async def work(mcp):
        return {
            "analyze": await mcp.call_tool("knowledgeBaseAnalyze", {"query": "What's 15% of £40?"}),
            "verify": await mcp.call_tool(
                "knowledgeBaseVerify",
                {"answer": "You can pay up to £4,000 a year into a Lifetime ISA."},
            ),
            "suggest": await mcp.call_tool("knowledgeBaseSuggest", {"profile": {"age": 22}}),
            "empty": await mcp.call_tool("knowledgeBaseSearch", {"query": "  "}),
            "unknown field": await mcp.call_tool(
                "knowledgeBaseSearch", {"query": "ISA", "profile": {"shoe_size": 9}}
            ),
            "too many": await mcp.call_tool(
                "knowledgeBaseSuggest", {"profile": {"age": 22}, "k": 500}
            ),
            "unknown category": await mcp.call_tool(
                "knowledgeBaseSearch", {"query": "ISA", "categories": ["no_such_category"]}
            ),
        }

    results = calls(live_server.url, raw, work)
    analysis = results["analyze"].structured_content
    assert (analysis["strategy"], analysis["no_lookup"]) == ("none", "arithmetic")
    claims = results["verify"].structured_content["claims"]
    assert claims and claims[0]["verdict"] == "supported"
    assert "suggestions" in results["suggest"].structured_content
    for name in ("empty", "unknown field", "too many"):
        assert results[name].is_error, name
    assert "query" in results["empty"].content[0].text
    assert "shoe_size" in results["unknown field"].content[0].text
    assert "k" in results["too many"].content[0].text
    assert QueryLog.objects.filter(endpoint__startswith="/mcp/", status_code=422).count() == 3
    assert results["unknown category"].is_error
    assert (
        "categories: unknown category no_such_category"
        in results["unknown category"].content[0].text
    )
    assert QueryLog.objects.filter(endpoint="/mcp/knowledgeBaseSearch", status_code=400).exists()


@pytest.mark.parametrize("who", ["no token", "a bad token", "a revoked token"])
def test_the_endpoint_takes_only_a_live_api_token(live_server, transactional_db, who):
    token, raw = api_token_create(name="agent")
    if who == "a revoked token":
        api_token_revoke(token=token)
    headers = {
        "no token": {},
        "a bad token": {"Authorization": "Bearer not-a-token"},
        "a revoked token": {"Authorization": f"Bearer {raw}"},
    }[who]
    response = httpx.post(
        f"{live_server.url}/mcp",
        json=INITIALIZE,
        headers={**headers, "Accept": "application/json, text/event-stream"},
    )
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == "Bearer"
    assert "valid API token" in response.json()["detail"]
    with pytest.raises(Exception):  # noqa: B017 - the SDK's client refuses to go on, as it should
        calls(
            live_server.url,
            headers.get("Authorization", " ").split(" ")[1] or None,
            lambda m: m.list_tools(),
        )


def test_a_live_token_initialises_over_plain_http_and_get_is_refused(live_server, transactional_db):
    _, raw = api_token_create(name="agent")
    headers = {"Authorization": f"Bearer {raw}", "Accept": "application/json, text/event-stream"}
    response = httpx.post(f"{live_server.url}/mcp", json=INITIALIZE, headers=headers)
    assert response.status_code == 200
    assert response.json()["result"]["serverInfo"]["name"] == "navigator"
    assert httpx.get(f"{live_server.url}/mcp", headers=headers).status_code == 405


def test_analyze_and_verify_through_mcp_answer_what_the_json_api_answers(
    live_server, live_kb, client
):
    _, raw = api_token_create(name="agent")
    analyze = {
        "query": "and for a Junior ISA?",
        "conversation": [
            {"role": "user", "content": "What's the ISA allowance?"},
            {"role": "assistant", "content": "£20,000 a year."},
        ],
    }
    verify = {"answer": "You can pay up to £4,000 a year into a Lifetime ISA."}

    async def work(mcp):
        return (
            await mcp.call_tool("knowledgeBaseAnalyze", analyze),
            await mcp.call_tool("knowledgeBaseVerify", verify),
        )

    analysed, verified = calls(live_server.url, raw, work)
    for result, path, body in ((analysed, "analyze", analyze), (verified, "verify", verify)):
        over_api = client.post(
            f"/api/v1/{path}",
            json.dumps(body),
            content_type="application/json",
            HTTP_AUTHORIZATION=f"Bearer {raw}",
        ).json()
        assert without_timings(result.structured_content) == without_timings(over_api), path
