"""Two versions of a page as a word diff, for the "Changes on gov.uk" screen: what only the
previous version says and what only the current one says are marked (changed amounts, rates
and dates apart from other words, by the review screen's word diff); long unchanged stretches
are cut to a few words either side of each change."""

from __future__ import annotations

from dataclasses import dataclass, replace

from django.utils.safestring import SafeString

from curation.presenters.worddiff import FIGURE, SAME, Segment, segments_html, word_diff

CONTEXT_WORDS = 25
GAP = "[…]"


@dataclass(frozen=True)
class PageDiff:
    previous_html: SafeString
    current_html: SafeString
    figures_changed: int  # changed amounts, rates and dates, either side
    words_changed: int  # any changed runs, either side

    @property
    def changed(self) -> bool:
        return self.words_changed > 0


def page_diff(previous_text: str, current_text: str) -> PageDiff:
    old, new = word_diff(previous_text, current_text)
    changed = [segment for segment in old + new if segment.changed]
    return PageDiff(
        previous_html=segments_html(_cut(old), tag="del"),
        current_html=segments_html(_cut(new), tag="ins"),
        figures_changed=sum(1 for segment in changed if segment.kind == FIGURE),
        words_changed=len(changed),
    )


def _cut(segments: list[Segment]) -> list[Segment]:
    """Unchanged runs longer than twice the context keep only the words next to a change."""
    cut = []
    for index, segment in enumerate(segments):
        if segment.kind != SAME:
            cut.append(segment)
            continue
        words = segment.text.split(" ")
        keep_head = index > 0  # words after the change before it
        keep_tail = index + 1 < len(segments)  # words before the next change
        cut.append(replace(segment, text=_shortened(words, keep_head, keep_tail)))
    return cut


def _shortened(words: list[str], keep_head: bool, keep_tail: bool) -> str:
    if not (keep_head or keep_tail):  # nothing changed: the page's opening
        keep_head = True
    kept = CONTEXT_WORDS * (keep_head + keep_tail)
    if len(words) <= kept + CONTEXT_WORDS:
        return " ".join(words)
    head = words[:CONTEXT_WORDS] if keep_head else []
    tail = words[-CONTEXT_WORDS:] if keep_tail else []
    return " ".join([*head, GAP, *tail])
