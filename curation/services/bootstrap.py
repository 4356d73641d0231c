"""Bootstrap mode: propose concepts for a category that has no taxonomy (or a thin one) from
its pages, for editors to rename, merge and approve before (re-)extraction binds to them.

`heuristic` (offline, labelled as such in each proposal's description): section headings
that recur across the category's pages, then word pairs that recur in its pages' text, each
becoming a `proposed` concept whose description quotes where it was found.
`openai`: the model reads the pages' headings and the start of their text and proposes
concepts; a proposal whose id, name or description is unusable is dropped and counted.

Kept whole: both providers' proposals go through one checking and storing path, which the
heuristic's phrase reading feeds.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from django.db import transaction

from curation.services.audit import audit_record, states_of
from curation.services.taxonomy import require_editor
from knowledge.models import (
    TAXONOMY_ID_PATTERN,
    Category,
    Concept,
    ConceptAlias,
    ExtractionRun,
    PageSnapshot,
    Source,
)
from knowledge.providers import (
    CategoryInfo,
    PageDigest,
    ProposedConcept,
    ProviderError,
    get_provider,
)
from knowledge.services.extract import snapshot_reextract_for_category
from knowledge.services.ingest import snapshot_recency
from knowledge.text.words import STOPWORDS

# Headings every guide has: they name a kind of section, not a topic of the category.
GENERIC_HEADINGS = frozenset(
    (
        "overview",
        "contents",
        "contact",
        "contacts",
        "help",
        "introduction",
        "summary",
        "further information",
        "more information",
        "related content",
        "before you start",
        "how to apply",
        "how to claim",
        "what you'll get",
        "what you need to know",
        "next steps",
    )
)
_WORD = re.compile(r"[a-z][a-z']+")
MAX_PROPOSALS = 40
PROPOSAL_FIELDS = ("taxonomy_id", "category", "name", "description", "status")
HEURISTIC = "heuristic"
# What an LLM reads of a category: enough pages and text to see its topics, within one prompt.
LLM_MAX_PAGES = 40
LLM_MAX_HEADINGS = 20
LLM_EXCERPT_CHARS = 600
MIN_DESCRIPTION = 10


class BootstrapRefused(ValueError):
    pass


@dataclass
class Proposal:
    taxonomy_id: str
    name: str
    description: str
    pages: int


@dataclass
class BootstrapReport:
    pages: int = 0
    proposed: list[str] = field(default_factory=list)
    existing: list[str] = field(default_factory=list)
    provider: str = HEURISTIC
    pages_read: int = 0  # by the LLM: at most LLM_MAX_PAGES
    model: str = ""
    rejected: list[str] = field(default_factory=list)  # dropped LLM proposals, with why
    prompt_tokens: int = 0
    completion_tokens: int = 0


def category_pages(
    *, category: Category, url_prefixes: list[str] | None = None
) -> list[PageSnapshot]:
    """The latest snapshot of each page in the category: the pages whose URL starts with one
    of `url_prefixes` when given (a new category's pages), else those whose last extraction
    placed them in the category."""
    if url_prefixes:
        sources = [s for s in Source.objects.all() if s.url.startswith(tuple(url_prefixes))]
    else:
        source_ids = {
            run.snapshot.source_id
            for run in ExtractionRun.objects.select_related("snapshot").filter(
                context__category=category.slug
            )
        }
        sources = list(Source.objects.filter(pk__in=source_ids))
    latest = []
    for source in sources:
        snapshots = list(source.snapshots.all())
        if snapshots:
            latest.append(max(snapshots, key=snapshot_recency))
    return latest


def category_pages_required(
    *, category: Category, url_prefixes: list[str] | None = None
) -> list[PageSnapshot]:
    """The category's pages (`category_pages`), or BootstrapRefused when there are none."""
    snapshots = category_pages(category=category, url_prefixes=url_prefixes)
    if not snapshots:
        raise BootstrapRefused(
            f"category {category.slug}: no pages found; give their URL prefix (--pages)"
        )
    return snapshots


def concepts_propose_heuristic(
    *, category: Category, snapshots: list[PageSnapshot], prefix: str, limit: int = 15
) -> list[Proposal]:
    """Recurring section headings first (most pages first), then recurring word pairs."""
    headings: dict[str, set[int]] = defaultdict(set)
    first_text: dict[str, str] = {}
    pairs: Counter[str] = Counter()
    for snapshot in snapshots:
        for section in snapshot.sections or []:
            path = section.get("heading_path") or []
            if not path:
                continue
            heading = " ".join(path[-1].split())
            key = heading.lower()
            if key in GENERIC_HEADINGS or len(key) < 4:
                continue
            headings[key].add(snapshot.source_id)
            body = snapshot.text[section.get("start", 0) : section.get("end", 0)]
            first_text.setdefault(key, _first_sentence(body, heading))
        pairs.update(set(_word_pairs(snapshot.text)))
    ranked = sorted(headings, key=lambda key: (-len(headings[key]), key))
    proposals, seen = [], set()
    for key in ranked:
        proposal = _proposal(prefix, key, first_text[key], len(headings[key]), source="heading")
        if proposal.taxonomy_id not in seen:
            seen.add(proposal.taxonomy_id)
            proposals.append(proposal)
    for pair, count in pairs.most_common():
        if len(proposals) >= limit or count < 2:
            break
        proposal = _proposal(prefix, pair, "", count, source="phrase")
        if proposal.taxonomy_id not in seen:
            seen.add(proposal.taxonomy_id)
            proposals.append(proposal)
    return proposals[:limit]


def _first_sentence(body: str, heading: str) -> str:
    text = " ".join(body.split())
    if text.startswith(heading):
        text = text[len(heading) :].strip(" :.-")
    sentence = re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0]
    return sentence[:300]


def _word_pairs(text: str):
    words = [w for w in _WORD.findall(text.lower()) if w not in STOPWORDS and len(w) > 2]
    for first, second in zip(words, words[1:], strict=False):
        yield f"{first} {second}"


def _proposal(prefix: str, phrase: str, found: str, pages: int, *, source: str) -> Proposal:
    slug = "_".join(_WORD.findall(phrase.lower().replace("'", "")))[:60].strip("_") or "topic"
    name = phrase[:1].upper() + phrase[1:]
    where = (
        f"section heading on {pages} page(s)"
        if source == "heading"
        else f"phrase on {pages} page(s)"
    )
    description = f"Proposed by the heuristic bootstrap (no LLM) from a {where}."
    if found:
        description += f" The pages say: {found}"
    return Proposal(f"{prefix}.{slug}", name[:200], description, pages)


def concepts_propose_llm(
    *,
    category: Category,
    snapshots: list[PageSnapshot],
    prefix: str,
    limit: int,
    provider,
    report: BootstrapReport,
) -> list[Proposal]:
    """One request with the category's pages (the first LLM_MAX_PAGES by address); proposals
    that fail validation are dropped and listed in `report.rejected`. Raises ProviderError."""
    pages = [_page_digest(s) for s in sorted(snapshots, key=lambda s: s.source.url)]
    report.pages_read = min(len(pages), LLM_MAX_PAGES)
    existing = [f"{c.taxonomy_id}: {c.name}" for c in category.concepts.order_by("taxonomy_id")]
    answer, usage = provider.propose_concepts(
        category=CategoryInfo(category.slug, category.name, category.description),
        pages=pages[:LLM_MAX_PAGES],
        existing=existing,
        limit=limit,
    )
    report.model = usage.model
    report.prompt_tokens += usage.prompt_tokens
    report.completion_tokens += usage.completion_tokens
    proposals, seen = [], set()
    for item in answer:
        taxonomy_id = f"{prefix}.{item.id_suffix.strip().removeprefix(prefix + '.')}"
        problem = _proposal_problem(item, taxonomy_id) or (
            "the answer proposes it twice" if taxonomy_id in seen else None
        )
        if problem:
            report.rejected.append(f"{taxonomy_id!r}: {problem}")
            continue
        seen.add(taxonomy_id)
        name, description = " ".join(item.name.split()), " ".join(item.description.split())
        proposals.append(Proposal(taxonomy_id, name, description, pages=0))
    return proposals[:limit]


def _page_digest(snapshot: PageSnapshot) -> PageDigest:
    headings = [
        " ".join(s["heading_path"][-1].split())
        for s in snapshot.sections or []
        if s.get("heading_path")
    ]
    return PageDigest(
        title=snapshot.raw.get("title") or snapshot.source.title,
        url=snapshot.source.url,
        headings=list(dict.fromkeys(headings))[:LLM_MAX_HEADINGS],
        excerpt=" ".join(snapshot.text[: LLM_EXCERPT_CHARS * 2].split())[:LLM_EXCERPT_CHARS],
    )


def _proposal_problem(item: ProposedConcept, taxonomy_id: str) -> str | None:
    if not re.fullmatch(TAXONOMY_ID_PATTERN, taxonomy_id) or len(taxonomy_id) > 128:
        return "the id is not lower-case snake_case segments joined by dots"
    if not 3 <= len(item.name.strip()) <= 200:
        return "the name is not 3 to 200 characters"
    if len(item.description.strip()) < MIN_DESCRIPTION:
        return f"the description is shorter than {MIN_DESCRIPTION} characters"
    return None


def concepts_bootstrap(
    *,
    category_slug: str,
    prefix: str | None = None,
    url_prefixes: list[str] | None = None,
    limit: int = 15,
    dry_run: bool = False,
    user=None,
    provider: str | None = None,
) -> BootstrapReport:
    """Store the proposals as `proposed` concepts of the category (ids already taken by a
    concept or an alias are reported, not overwritten), with one audit event that reverts
    them. Idempotent. `user` None is the command line (an operator); else an editor.
    `provider` None is the heuristic (offline, free); `openai` asks the LLM once, and a
    failed request is a BootstrapRefused that stores nothing."""
    if user is not None:
        require_editor(user)
    category, prefix = proposal_arguments_check(
        category_slug=category_slug, prefix=prefix, limit=limit
    )
    snapshots = category_pages_required(category=category, url_prefixes=url_prefixes)
    report = BootstrapReport(pages=len(snapshots), provider=provider or HEURISTIC)
    proposals = _proposals(category, snapshots, prefix=prefix, limit=limit, report=report)
    taken = set(Concept.objects.values_list("taxonomy_id", flat=True))
    taken |= set(ConceptAlias.objects.values_list("alias", flat=True))
    with transaction.atomic():
        created = []
        for proposal in proposals:
            if proposal.taxonomy_id in taken:
                report.existing.append(proposal.taxonomy_id)
                continue
            created.append(
                Concept.objects.create(
                    taxonomy_id=proposal.taxonomy_id,
                    category=category,
                    name=proposal.name,
                    description=proposal.description,
                    status=Concept.Status.PROPOSED,
                )
            )
            report.proposed.append(proposal.taxonomy_id)
        if created:
            audit_record(
                actor=user,
                action="concept.propose",
                target=category,
                summary=f"Bootstrap ({_by(report)}) proposed {len(created)} concept(s) for {category.slug}",
                before={"concept": {str(c.pk): None for c in created}},
                after={"concept": states_of(created, PROPOSAL_FIELDS)},
            )
        if dry_run:
            transaction.set_rollback(True)
    return report


def proposal_arguments_check(
    *, category_slug: str, prefix: str | None, limit: int
) -> tuple[Category, str]:
    """The category and the id prefix proposals take, or BootstrapRefused naming the field."""
    if not 1 <= limit <= MAX_PROPOSALS:
        raise BootstrapRefused(f"limit: between 1 and {MAX_PROPOSALS}")
    category = _category(category_slug)
    prefix = prefix or category.slug.split("_")[0]
    if not re.fullmatch(r"[a-z][a-z0-9_]*", prefix):
        raise BootstrapRefused("prefix: lower-case letters, digits and underscores")
    return category, prefix


def _proposals(
    category: Category,
    snapshots: list[PageSnapshot],
    *,
    prefix: str,
    limit: int,
    report: BootstrapReport,
) -> list[Proposal]:
    if report.provider == HEURISTIC:
        return concepts_propose_heuristic(
            category=category, snapshots=snapshots, prefix=prefix, limit=limit
        )
    try:
        return concepts_propose_llm(
            category=category,
            snapshots=snapshots,
            prefix=prefix,
            limit=limit,
            provider=get_provider(report.provider),
            report=report,
        )
    except ProviderError as exc:
        raise BootstrapRefused(f"provider {report.provider}: {exc.reason}") from exc


def _by(report: BootstrapReport) -> str:
    return f"{report.provider}, {report.model}" if report.model else report.provider


@dataclass
class ReextractReport:
    pages: int = 0
    units_made: int = 0
    runs: list[int] = field(default_factory=list)


def category_reextract(
    *,
    category_slug: str,
    url_prefixes: list[str] | None = None,
    provider=None,
    user=None,
    progress: Callable[[int, int], None] = lambda done, total: None,
) -> ReextractReport:
    """Extract the category's pages again so their facts bind to its (newly approved)
    concepts; a page already re-extracted for this state of the taxonomy costs nothing.
    `progress(done, total)` is told the pages' count, then after each page."""
    from knowledge.services.embed import concepts_embed

    if user is not None:
        require_editor(user)
    category = reextract_arguments_check(category_slug=category_slug)
    concepts_embed()  # approved concepts need vectors before binding
    report = ReextractReport()
    pages = category_pages(category=category, url_prefixes=url_prefixes)
    progress(0, len(pages))
    for snapshot in pages:
        run = snapshot_reextract_for_category(
            snapshot_id=snapshot.pk, category=category, provider=provider
        )
        report.pages += 1
        report.units_made += run.units_made
        report.runs.append(run.pk)
        progress(report.pages, len(pages))
    return report


def reextract_arguments_check(*, category_slug: str) -> Category:
    category = _category(category_slug)
    if not category.concepts.filter(status=Concept.Status.ACTIVE).exists():
        raise BootstrapRefused(f"category {category_slug}: approve some concepts first")
    return category


def _category(slug: str) -> Category:
    try:
        return Category.objects.get(slug=slug)
    except Category.DoesNotExist:
        raise BootstrapRefused(f"category: no category {slug!r}") from None
