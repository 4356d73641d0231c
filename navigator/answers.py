"""What each tool answers, and what its call leaves in the query log: one implementation
behind the JSON API's endpoints (navigator.api) and the MCP server's tools (navigator.mcp),
so that the same input gets the same answer over either."""

from __future__ import annotations

from knowledge.band_table import person_on
from knowledge.domain.questions import ConversationTurn
from knowledge.domain.temporal import as_of_or_today
from knowledge.query.search import QuestionResult, question_plan, question_search
from knowledge.query.suggest import profile_suggest
from knowledge.retrieval import SearchParams, SearchResult
from knowledge.verification.check import answer_verify
from knowledge.verification.judge import claim_judge
from navigator import presenters
from navigator.schemas.search import QuestionIn, SearchIn
from navigator.schemas.suggest import SuggestIn
from navigator.schemas.verify import VerifyIn


def search_answered(payload: SearchIn) -> QuestionResult:
    return question_search(params=payload.search_params(), conversation=turns(payload))


def search_logged(payload: SearchIn, result: SearchResult, body: dict) -> dict:
    return {
        "query": payload.query,
        "params": logged_params(payload),
        "outcome": result.outcome,
        "reasons": result.reasons,
        "analysis": body["analysis"],
        "result_concepts": [hit.concept.taxonomy_id for hit in result.concepts],
        "result_units": served_units(
            unit for hit in body["concepts"] for group in hit["sources"] for unit in group["units"]
        ),
        "timings_ms": body["timings_ms"],
    }


def search_answer(payload: SearchIn) -> tuple[dict, dict]:
    """The search's body, and its log row's fields."""
    answered = search_answered(payload)
    body = presenters.search_payload(answered)
    return body, search_logged(payload, answered.result, body)


def analyze_answer(payload: QuestionIn) -> tuple[dict, dict]:
    plan = question_plan(
        params=SearchParams(query=payload.query, as_of=payload.as_of, profile=payload.profile),
        conversation=turns(payload),
    )
    body = plan.as_json()
    return body, {
        "query": payload.query,
        "params": logged_params(payload),
        "analysis": body,
        "timings_ms": {"analysis": plan.milliseconds},
    }


def suggest_answer(payload: SuggestIn) -> tuple[dict, dict]:
    result = profile_suggest(profile=payload.profile, as_of=payload.as_of, k=payload.k)
    body = presenters.suggestions_payload(result)
    return body, {
        "params": {
            "as_of": str(result.as_of),
            "k": payload.k,
            "profile_fields": payload.profile.fields_present(),
        },
        "outcome": "ok",
        "result_concepts": [s.hit.concept.taxonomy_id for s in result.suggestions],
        "timings_ms": result.timings_ms,
    }


def verify_answer(payload: VerifyIn) -> tuple[dict, dict]:
    checked = answer_verify(
        answer=payload.answer,
        as_of=payload.as_of,
        cited_unit_ids=payload.cited_unit_ids,
        judge=claim_judge(),
        asked=_last_question(payload.conversation),
        person=person_on(payload.profile, as_of_or_today(payload.as_of))
        if payload.profile
        else None,
    )
    body = presenters.verification_payload(checked)
    return body, {
        "query": payload.answer[:2000],
        "params": {"as_of": str(checked.as_of)}
        | ({"profile_fields": payload.profile.fields_present()} if payload.profile else {}),
        "outcome": "ok",
        "reasons": sorted({c["verdict"] for c in body["claims"]}),
        "result_units": served_units(unit for claim in body["claims"] for unit in claim["units"]),
        "timings_ms": body["timings_ms"],
    }


def served_units(units) -> list[int]:
    """The ids of a response's units in the order it lists them, each once (at its first)."""
    return list(dict.fromkeys(unit["id"] for unit in units))


def _last_question(conversation) -> str:
    """The latest user turn: what the answer being checked replies to."""
    return next((t.content for t in reversed(conversation) if t.role == "user"), "")


def turns(payload: QuestionIn | SearchIn) -> list[ConversationTurn]:
    return [ConversationTurn(turn.role, turn.content) for turn in payload.conversation]


def logged_params(payload: QuestionIn | SearchIn) -> dict:
    """The request as logged: the conversation by its size (its words stay with the caller)
    and the profile by the names of its fields (its values are the user's, never stored)."""
    params = payload.model_dump(exclude={"query", "conversation", "profile"}, exclude_none=True)
    params["as_of"] = str(payload.as_of) if payload.as_of else None
    if payload.conversation:
        params["conversation_turns"] = len(payload.conversation)
    if payload.profile is not None:
        params["profile_fields"] = payload.profile.fields_present()
    return params
