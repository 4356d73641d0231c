"""Evaluation against the shared gold files (../shared/eval/README.md).

gold (reading the threshold gold) · amounts (what a unit stores for a value or a printed
figure) · scoring (targets and unit outcomes) · chains (superseding chain steps) · thresholds
(the threshold report) · retrieval (the dev questions through search; imported on its own,
since it loads the retrieval stack).
"""

from evaluation.thresholds.chains import ChainCheck, ChainStep, chain_steps
from evaluation.thresholds.gold import GoldFact, GoldFormatError, GoldMatch, GoldValue, gold_load
from evaluation.thresholds.report import (
    PAGE_FILE_PERIOD,
    CategoryRecall,
    DatingError,
    Miss,
    Recall,
    ThresholdReport,
    UnitDates,
    threshold_recall,
)
from evaluation.thresholds.scoring import (
    CATEGORY_SLUGS,
    Outcome,
    Target,
    UnitRecord,
    outcomes_score,
    targets_build,
    threshold_units,
)

__all__ = [
    "CATEGORY_SLUGS",
    "PAGE_FILE_PERIOD",
    "CategoryRecall",
    "ChainCheck",
    "ChainStep",
    "DatingError",
    "GoldFact",
    "GoldFormatError",
    "GoldMatch",
    "GoldValue",
    "Miss",
    "Outcome",
    "Recall",
    "Target",
    "ThresholdReport",
    "UnitDates",
    "UnitRecord",
    "chain_steps",
    "gold_load",
    "outcomes_score",
    "targets_build",
    "threshold_recall",
    "threshold_units",
]
