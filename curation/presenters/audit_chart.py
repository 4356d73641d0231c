"""The audit results' precision-over-time chart (right on every count, one point a sample
with its Wilson interval as a whisker), as geometry for an inline SVG."""

from __future__ import annotations

from dataclasses import dataclass

from curation.models import AuditSample
from curation.selectors.audit_sample import Estimate

PLOT_HEIGHT = 100
STEP = 36
MARGIN = 12
LABEL_SPACE = 16


@dataclass(frozen=True)
class Point:
    x: int
    y: float
    low_y: float
    high_y: float
    label: str
    title: str


@dataclass(frozen=True)
class PrecisionChart:
    width: int
    height: int
    plot_height: int
    points: list[Point]

    @property
    def label_y(self) -> int:
        return self.height - 3

    @property
    def polyline(self) -> str:
        return " ".join(f"{p.x},{p.y:.1f}" for p in self.points)


def _y(fraction: float) -> float:
    return PLOT_HEIGHT - fraction * PLOT_HEIGHT


def precision_chart(over_time: list[tuple[AuditSample, Estimate]]) -> PrecisionChart:
    points = []
    for index, (sample, estimate) in enumerate(
        (s, e) for s, e in over_time if e.n
    ):  # samples nobody judged yet have no point
        low, high = estimate.interval
        points.append(
            Point(
                x=MARGIN + index * STEP,
                y=_y(estimate.precision),
                low_y=_y(low),
                high_y=_y(high),
                label=f"#{sample.pk}",
                title=(
                    f"Sample {sample.pk} ({sample.drawn_at:%d %b %Y}): "
                    f"{estimate.precision:.0%} right on every count, 95% interval "
                    f"{low:.0%}–{high:.0%}, {estimate.n} judged"
                ),
            )
        )
    width = MARGIN * 2 + max(len(points) - 1, 0) * STEP
    return PrecisionChart(
        width=width, height=PLOT_HEIGHT + LABEL_SPACE, plot_height=PLOT_HEIGHT, points=points
    )
