"""The one tool registry (navigator.tools): the JSON API serves each tool with the request
model the registry names, `GET /tools` lists the registry's definitions, and a tool accepts
only the fields it publishes. MCP's list and calls are held to it in test_mcp.py."""

import dataclasses

import pytest
from pydantic import ValidationError

from navigator.api import api
from navigator.schemas.search import SearchIn
from navigator.tools import TOOLS


def api_operation(path: str):
    """The JSON API's POST operation at `path`."""
    (operation,) = api.default_router.path_operations[path].operations
    assert operation.methods == ["POST"]
    return operation


def test_the_api_serves_each_tool_with_the_registry_s_request_model():
    for tool in TOOLS:
        (body,) = api_operation(tool.path).models
        assert body.model_fields["payload"].annotation is tool.request, tool.name


def test_the_api_declares_each_tool_s_response_and_refusals():
    paths = api.get_openapi_schema(path_prefix="")["paths"]
    for tool in TOOLS:
        responses = paths[tool.path]["post"]["responses"]
        assert sorted(responses) == [200, *tool.errors]
        assert responses[200]["content"]["application/json"]["schema"] == {
            "$ref": f"#/components/schemas/{tool.response.__name__}"
        }


def test_get_tools_lists_the_registry_s_definitions(db, client):
    published = client.get("/api/v1/tools").json()["tools"]
    assert published == [tool.definition() for tool in TOOLS]
    for tool, definition in zip(TOOLS, published, strict=True):
        assert list(definition["function"]["parameters"]["properties"]) == list(tool.fields)
    assert client.get("/api/v1/tool").json() == published[0]


def test_a_tool_takes_only_the_fields_it_publishes():
    search = next(tool for tool in TOOLS if tool.request is SearchIn)
    assert "token_budget" in SearchIn.model_fields and "token_budget" not in search.fields
    assert search.arguments({"query": "ISA allowance"}).query == "ISA allowance"
    with pytest.raises(ValidationError) as refused:
        search.arguments({"query": "ISA allowance", "token_budget": 100, "shoe_size": 9})
    assert [(e["loc"], e["msg"]) for e in refused.value.errors()] == [
        (("token_budget",), "Extra inputs are not permitted"),
        (("shoe_size",), "Extra inputs are not permitted"),
    ]


def test_a_tool_must_publish_fields_its_request_model_has_and_every_required_one():
    search = TOOLS[0]
    with pytest.raises(ValueError, match=r"unknown fields \['shoe_size'\]"):
        dataclasses.replace(search, fields=(*search.fields, "shoe_size"))
    with pytest.raises(ValueError, match=r"required unpublished \['query'\]"):
        dataclasses.replace(search, fields=("as_of",))
