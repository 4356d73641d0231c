"""The review screen's decisions-per-day chart, as geometry for an inline SVG."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from curation.selectors.review import DayDecisions

CHART_HEIGHT = 90
CHART_BAR_WIDTH = 18
CHART_GAP = 6
CHART_LABEL_SPACE = 16
CHART_STACK = (("approved", "Approved"), ("rejected", "Rejected"), ("flagged", "Flagged"))


@dataclass(frozen=True)
class Bar:
    kind: str
    count: int
    y: int
    height: int


@dataclass(frozen=True)
class Column:
    x: int
    day: dt.date
    total: int
    title: str
    bars: list[Bar] = field(default_factory=list)


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    plot_height: int
    bar_width: int
    most: int
    columns: list[Column]

    @property
    def label_x(self) -> int:
        return self.bar_width // 2

    @property
    def label_y(self) -> int:
        return self.height - 3


def decisions_chart(days: list[DayDecisions]) -> Chart:
    """Stacked columns, one a day: approved at the bottom, then rejected, then flagged."""
    most = max((day.total for day in days), default=0)
    scale = CHART_HEIGHT / max(most, 1)
    columns = []
    for index, day in enumerate(days):
        base, bars = CHART_HEIGHT, []
        for kind, _ in CHART_STACK:
            count = getattr(day, kind)
            if count:
                height = max(1, round(count * scale))
                base -= height
                bars.append(Bar(kind=kind, count=count, y=base, height=height))
        parts = ", ".join(f"{getattr(day, kind)} {label.lower()}" for kind, label in CHART_STACK)
        columns.append(
            Column(
                x=index * (CHART_BAR_WIDTH + CHART_GAP),
                day=day.day,
                total=day.total,
                title=f"{day.day:%a} {day.day.day} {day.day:%b}: {parts}",
                bars=bars,
            )
        )
    width = len(days) * (CHART_BAR_WIDTH + CHART_GAP) - CHART_GAP
    return Chart(
        width=max(width, 1),
        height=CHART_HEIGHT + CHART_LABEL_SPACE,
        plot_height=CHART_HEIGHT,
        bar_width=CHART_BAR_WIDTH,
        most=most,
        columns=columns,
    )
