"""What the review queue says of a unit (why it is there, in words) and its chart of the
reviewed share of what users were served, week by week, as geometry for an inline SVG (in
the manner of the audit results' precision chart)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from curation.exposure import TOP_RANKS, UnitExposure
from curation.presenters.review import evidence_url
from curation.selectors.unit_queue import QueueEntry, WeekShare
from knowledge.models import AtomicUnit

PLOT_HEIGHT = 80
STEP = 40
MARGIN = 16
LABEL_SPACE = 16


def exposure_words(exposure: UnitExposure | None, *, days: int) -> str:
    """'served 14 times in 30 days (top-3 in 9)', or 'not served in 30 days'."""
    window = f"in {days} day{'s' if days != 1 else ''}"
    if exposure is None or not exposure.times:
        return f"not served {window}"
    times = "once" if exposure.times == 1 else f"{exposure.times} times"
    return f"served {times} {window} (top-{TOP_RANKS} in {exposure.top})"


def why_words(entry: QueueEntry, *, days: int) -> str:
    """Why a unit is in the queue: its exposure and each reason to doubt it."""
    parts = [exposure_words(entry.exposure, days=days), *(r.words for r in entry.reasons)]
    return " · ".join(parts)


@dataclass(frozen=True)
class QueueRow:
    entry: QueueEntry
    unit: AtomicUnit
    why: str
    evidence_url: str
    edit_url: str

    @property
    def approved(self) -> bool:
        return self.unit.review_status == AtomicUnit.ReviewStatus.APPROVED

    @property
    def extracted(self) -> bool:
        """Only an extracted unit can go back to triage (its item needs the run)."""
        return self.unit.extraction_run_id is not None


def queue_rows(
    entries: list[QueueEntry], *, days: int, edit_url: Callable[[int], str]
) -> list[QueueRow]:
    """A page of the queue with its units (read in one query) and what is said of each."""
    units = AtomicUnit.objects.select_related("concept__category", "source").in_bulk(
        [entry.unit_id for entry in entries]
    )
    return [
        QueueRow(
            entry=entry,
            unit=units[entry.unit_id],
            why=why_words(entry, days=days),
            evidence_url=evidence_url(units[entry.unit_id]),
            edit_url=edit_url(entry.unit_id),
        )
        for entry in entries
        if entry.unit_id in units
    ]


@dataclass(frozen=True)
class SharePoint:
    x: int
    y: float
    label: str
    title: str


@dataclass(frozen=True)
class WeekLabel:
    x: int
    text: str


@dataclass(frozen=True)
class ShareChart:
    width: int
    height: int
    plot_height: int
    points: list[SharePoint]
    labels: list[WeekLabel]

    @property
    def label_y(self) -> int:
        return self.height - 3

    @property
    def polyline(self) -> str:
        return " ".join(f"{p.x},{p.y:.1f}" for p in self.points)


def share_chart(weeks: list[WeekShare]) -> ShareChart:
    """One point a week that served anything (its share reviewed by the week's end), every
    week labelled by its first day, so a week with no searches shows as a gap."""
    points, labels = [], []
    for index, week in enumerate(weeks):
        x = MARGIN + index * STEP
        first = f"{week.start.day} {week.start:%b}"
        labels.append(WeekLabel(x, first))
        fraction = week.share.fraction
        if fraction is None:
            continue
        title = (
            f"Week from {first}: {fraction:.0%} of what was served had been reviewed "
            f"({week.share.reviewed:.1f} of {week.share.served:.1f}, weighted by rank)"
        )
        points.append(SharePoint(x, PLOT_HEIGHT - fraction * PLOT_HEIGHT, first, title))
    width = MARGIN * 2 + max(len(weeks) - 1, 0) * STEP
    return ShareChart(
        width=width,
        height=PLOT_HEIGHT + LABEL_SPACE,
        plot_height=PLOT_HEIGHT,
        points=points,
        labels=labels,
    )
