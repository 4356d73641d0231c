"""Who analyses a turn: the configured provider, with the heuristic analysis standing in
whenever a model fails (timeout, refusal, an answer of the wrong shape or no sense), so an
analysis never turns a search into an error."""

from __future__ import annotations

import datetime as dt
import logging

from django.conf import settings
from django.utils import timezone

from knowledge.domain.questions import ConversationTurn, QueryAnalysis
from knowledge.providers import HeuristicProvider, get_provider
from knowledge.providers.types import ProviderError
from knowledge.query.vocabulary import query_vocabulary

logger = logging.getLogger(__name__)


def query_analyse(
    *,
    query: str,
    conversation: list[ConversationTurn] | None = None,
    today: dt.date | None = None,
    provider=None,
) -> QueryAnalysis:
    conversation = conversation or []
    today = today or timezone.localdate()
    vocabulary = query_vocabulary()
    chosen = provider or get_provider(settings.QUERY_ANALYSIS_PROVIDER)
    asked = dict(query=query, conversation=conversation, vocabulary=vocabulary, today=today)
    if isinstance(chosen, HeuristicProvider):
        return chosen.analyse_query(**asked)
    try:
        return chosen.analyse_query(**asked)
    except ProviderError as exc:
        logger.warning("query analysis by %s failed, heuristic used: %s", chosen.name, exc.reason)
        analysis = HeuristicProvider().analyse_query(**asked)
        analysis.fallback = f"{chosen.name} analysis failed: {exc.reason}"
        return analysis
