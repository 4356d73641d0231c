"""The OpenAI-compatible provider: any endpoint that speaks the chat-completions API with
structured outputs. The only module that imports `openai` for chat.

Each question is one user message; the answer's shape is a pydantic model that the SDK turns
into a strict JSON schema and parses the answer back into. Every way an answer can be unusable
becomes a ProviderError (or, for what a retry may cure, ProviderTransientError) whose reason
names what is wrong.
"""

from __future__ import annotations

import json
import logging
import threading

import openai
from pydantic import BaseModel, ValidationError

from knowledge.domain.extraction import (
    Adjudication,
    CategoryInfo,
    ConceptInfo,
    PageDigest,
    Placement,
    ProposedConcept,
    UnitText,
    Usage,
)
from knowledge.domain.questions import ClaimJudgement, QueryAnalysis
from knowledge.providers.openai_answers import claim_judgement, query_analysis, unit_proposals
from knowledge.providers.prompts import (
    EXTRACT_PROMPT_VERSION,
    adjudicate_prompt,
    analysis_prompt,
    bootstrap_prompt,
    context_prompt,
    judge_prompt,
    placement_prompt,
    units_prompt,
)
from knowledge.providers.types import (
    LlmAdjudication,
    LlmClaimJudgement,
    LlmConceptProposals,
    LlmPlacement,
    LlmQueryAnalysis,
    LlmUnits,
    PageContext,
    ProviderError,
    ProviderTransientError,
)
from knowledge.validation import first_error

logger = logging.getLogger(__name__)

# The tokens every chat request of this process has used, by model, whichever step asked:
# a command measuring several steps (eval_llm) reads it before and after each.
_spent: dict[str, list[int]] = {}
_spent_lock = threading.Lock()


def tokens_spent() -> dict[str, tuple[int, int]]:
    """(prompt, completion) tokens used so far in this process, by model."""
    with _spent_lock:
        return {model: (p, c) for model, (p, c) in _spent.items()}


def _spend(model: str, prompt_tokens: int, completion_tokens: int) -> None:
    with _spent_lock:
        counts = _spent.setdefault(model, [0, 0])
        counts[0] += prompt_tokens
        counts[1] += completion_tokens


class OpenAIProvider:
    name = "openai"
    prompt_version = EXTRACT_PROMPT_VERSION

    # The placement check is a judgement between given options, like adjudication, and
    # uses that model; bootstrap reads page text, like extraction, and uses that one.
    def __init__(
        self,
        *,
        client,
        context_model: str,
        extract_model: str,
        adjudicate_model: str = "",
        analysis_client=None,
        analysis_model: str = "",
    ):
        self.client = client
        self.context_model = context_model
        self.extract_model = extract_model
        self.adjudicate_model = adjudicate_model or extract_model
        # A query's analysis is on a search's path: its own client waits seconds, not a
        # minute, and does not retry (the heuristic analysis stands in when it fails).
        self.analysis_client = analysis_client or client
        self.analysis_model = analysis_model or context_model

    @classmethod
    def from_settings(cls) -> OpenAIProvider:
        from django.conf import settings

        client = openai.OpenAI(
            base_url=settings.LLM_BASE_URL,
            api_key=settings.LLM_API_KEY or "missing-key",
            timeout=settings.LLM_TIMEOUT_SECONDS,
            max_retries=settings.LLM_MAX_RETRIES,
        )
        analysis_client = openai.OpenAI(
            base_url=settings.LLM_BASE_URL,
            api_key=settings.LLM_API_KEY or "missing-key",
            timeout=settings.QUERY_ANALYSIS_TIMEOUT_SECONDS,
            max_retries=0,
        )
        return cls(
            client=client,
            context_model=settings.LLM_MODEL_CONTEXT,
            extract_model=settings.LLM_MODEL_EXTRACT,
            adjudicate_model=settings.LLM_MODEL_ADJUDICATE,
            analysis_client=analysis_client,
            analysis_model=settings.LLM_MODEL_ANALYSIS,
        )

    def page_context(self, *, page, categories, concepts):
        prompt = context_prompt(page=page, categories=categories)
        return self._structured(prompt, PageContext, model=self.context_model)

    def extract_units(self, *, page, context, concepts):
        prompt = units_prompt(page=page, context=context, concepts=concepts)
        answer, usage = self._structured(prompt, LlmUnits, model=self.extract_model)
        return unit_proposals(answer), usage

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

    def analyse_query(self, *, query, conversation, vocabulary, today) -> QueryAnalysis:
        """Raises ProviderError for an answer that parses but makes no sense (a broad
        strategy without searches, a date that is not one)."""
        prompt = analysis_prompt(
            query=query, conversation=conversation, vocabulary=vocabulary, today=today
        )
        answer, usage = self._structured(
            prompt, LlmQueryAnalysis, model=self.analysis_model, client=self.analysis_client
        )
        return query_analysis(answer, usage)

    def judge_claim(
        self, *, claim: str, sentence: str, day, facts: list[UnitText]
    ) -> ClaimJudgement:
        """A claim without figures judged against the numbered facts, on the request's path
        like a query's analysis (its client and model). Raises ProviderError for a verdict
        that names no fact, or a fact that was not shown."""
        prompt = judge_prompt(claim=claim, sentence=sentence, day=day, facts=facts)
        answer, usage = self._structured(
            prompt, LlmClaimJudgement, model=self.analysis_model, client=self.analysis_client
        )
        return claim_judgement(answer, usage, shown=len(facts))

    def tools_called(
        self, *, messages: list[dict], tools: list[dict], enough, rounds: int = 3
    ) -> tuple[list[str], Usage]:
        """The names of the tools a chat model calls for `messages` before it replies, with
        what it cost. No tool is run: each call is answered "not run" so the model may go on
        to another, for up to `rounds` rounds, until it replies or `enough(names)` holds."""
        messages, called = list(messages), []
        usage = Usage(model=self.analysis_model)
        for _ in range(rounds):
            try:
                completion = self.client.chat.completions.create(
                    model=self.analysis_model,
                    messages=messages,
                    tools=tools,
                    tool_choice="auto",
                    temperature=0,
                )
                message = completion.choices[0].message
                calls = list(message.tool_calls or [])
                names = [call.function.name for call in calls]
            except openai.OpenAIError as exc:
                raise _endpoint_failure(exc) from exc
            except (AttributeError, TypeError, IndexError) as exc:
                raise ProviderError(
                    f"the LLM endpoint answered with something other than a chat completion: {exc}"
                ) from exc
            step_prompt = getattr(completion.usage, "prompt_tokens", 0) or 0
            step_completion = getattr(completion.usage, "completion_tokens", 0) or 0
            _spend(getattr(completion, "model", None) or usage.model, step_prompt, step_completion)
            usage = Usage(
                model=getattr(completion, "model", None) or usage.model,
                prompt_tokens=usage.prompt_tokens + step_prompt,
                completion_tokens=usage.completion_tokens + step_completion,
            )
            called += names
            if not calls or enough(called):
                break
            messages.append(message.model_dump(exclude_none=True))
            messages += [
                {"role": "tool", "tool_call_id": call.id, "content": "(not run: evaluation)"}
                for call in calls
            ]
        return called, usage

    def _structured(self, prompt: str, schema: type[BaseModel], *, model: str, client=None):
        """The answer parsed into `schema`, and what it cost."""
        completion = _parsed_completion(client or self.client, prompt, schema, model=model)
        usage = Usage(
            model=getattr(completion, "model", None) or model,
            prompt_tokens=getattr(completion.usage, "prompt_tokens", 0) or 0,
            completion_tokens=getattr(completion.usage, "completion_tokens", 0) or 0,
        )
        _spend(usage.model, usage.prompt_tokens, usage.completion_tokens)
        return _answer(completion), usage


def _parsed_completion(client, prompt: str, schema: type[BaseModel], *, model: str):
    try:
        return client.chat.completions.parse(
            model=model,
            messages=[{"role": "user", "content": prompt}],
            response_format=schema,
            temperature=0,
        )
    except openai.OpenAIError as exc:
        raise _endpoint_failure(exc) from exc
    except ValidationError as exc:
        raise _unusable_answer(exc) from None
    except json.JSONDecodeError as exc:  # a 200 whose body claims to be JSON but is not
        raise ProviderError(
            f"the LLM endpoint answered with a body that is not valid JSON: {exc}"
        ) from exc
    except (AttributeError, TypeError) as exc:
        # The SDK's parser reads `choices` of whatever a 200 held: an HTML page, a JSON list
        # or an object without choices make it trip here.
        raise ProviderError(
            f"the LLM endpoint answered with something other than a chat completion: {exc}"
        ) from exc


def _endpoint_failure(exc: openai.OpenAIError) -> ProviderError:
    if isinstance(exc, openai.APITimeoutError):
        return ProviderTransientError("the LLM endpoint timed out (APITimeoutError)")
    if isinstance(exc, openai.APIConnectionError):
        return ProviderTransientError(f"{type(exc).__name__} from the LLM endpoint")
    if isinstance(exc, openai.RateLimitError):
        return ProviderTransientError("the LLM endpoint kept answering 429 (rate limited)")
    if isinstance(exc, openai.APIStatusError):
        kind = ProviderTransientError if exc.status_code >= 500 else ProviderError
        detail = _error_detail(exc)
        return kind(
            f"the LLM endpoint answered HTTP {exc.status_code}" + (f": {detail}" if detail else "")
        )
    if isinstance(exc, openai.LengthFinishReasonError):
        return ProviderError(
            "the LLM answer is not valid JSON: it was cut off at the output token limit"
        )
    if isinstance(exc, openai.ContentFilterFinishReasonError):
        return ProviderError("the LLM endpoint's content filter withheld the answer")
    # e.g. a response that fails the client's own validation
    return ProviderError(f"the LLM endpoint's response is unusable: {exc}")


def _unusable_answer(exc: ValidationError) -> ProviderError:
    """The SDK parses the answer with the schema: its first error says whether the text was
    not JSON at all or JSON of the wrong shape."""
    first = exc.errors()[0]
    if first["type"] == "json_invalid":
        return ProviderError(f"the LLM answer is {first_error(exc)}")
    return ProviderError(f"the LLM answer does not match the schema: {first_error(exc)}")


def _error_detail(exc: openai.APIStatusError) -> str:
    """The message an OpenAI-style error body carries ({"error": {"message": ...}})."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error", body)
        message = error.get("message") if isinstance(error, dict) else error
        if message:
            return str(message)[:300]
    return ""


def _answer(completion):
    """The parsed answer of the first choice; a refusal or an empty answer is an error."""
    if not completion.choices:
        raise ProviderError("the LLM answer has no choices")
    message = completion.choices[0].message
    refusal = getattr(message, "refusal", None)
    if refusal:
        raise ProviderError(f"the model refused: {refusal}")
    if getattr(message, "parsed", None) is None:
        raise ProviderError("the LLM answer has no text content")
    return message.parsed
