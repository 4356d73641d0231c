"""What claim checking answers: a claim's verdict with its reason, the units that decide it
and what they hold, and an answer's verdicts; and the caveat of an ended period."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from knowledge.reading.candidates import Evidence
from knowledge.reading.claims import Claim
from knowledge.verification.holdings import period_words


@dataclass
class ClaimVerdict:
    claim: Claim
    verdict: str
    reason: str
    evidence: list[Evidence] = field(default_factory=list)
    knowledge_base_value: str | None = None
    checked_by: str = "rules"  # or "model:<name>" for a claim a chat model judged
    explanation: str = ""  # what was compared, or a model's one sentence on its verdict
    fallback: str = ""  # why a model's judgement was asked for and not used
    # Resting on a period that has ended: which period, and that nothing newer is known.
    caveat: str = ""


@dataclass
class Verification:
    claims: list[ClaimVerdict]
    as_of: dt.date
    milliseconds: float

    @property
    def support_score(self) -> float | None:
        if not self.claims:
            return None
        return round(sum(c.verdict == "supported" for c in self.claims) / len(self.claims), 4)


def outdated_caveat(unit) -> str:
    """The period of the newest figure held, which ended before the day asked about."""
    return (
        f"the newest figure held is for the period {period_words(unit.valid_from, unit.valid_to)}, "
        "which has ended; no newer figure is known"
    )
