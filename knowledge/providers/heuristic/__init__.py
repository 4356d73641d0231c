"""The offline, rule-based provider (labelled `heuristic` wherever its output shows): the
provider class, and its rules for what is not extraction — superseding adjudication and the
analysis of a conversation turn. Its extraction rules live in knowledge.extraction."""

from knowledge.providers.heuristic.provider import HeuristicProvider

__all__ = ["HeuristicProvider"]
