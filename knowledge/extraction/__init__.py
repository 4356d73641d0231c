"""The heuristic extractor's rules, page → proposed units, and the dating policy every
provider's proposals follow.

lines (the page as lines of a kind) · context (lead-ins, and what a list leans on) ·
sentences (what one sentence does: its type) · figures (one statement, one unit: the figure it
is about and the others' roles) · proposals (stating units) · subjects (naming what a unit is
about) · navigation (signposts, not units) · page_dates (periods a page, a row or a heading
states) · units (the walk over a page's sections, lists and paragraphs) · tables (rate tables
and rows) · binding (which concept a unit is about) · dating (when a unit holds, and why).
The pure readers of gov.uk English they share (amounts, dates, glossary) are knowledge.text.
"""
