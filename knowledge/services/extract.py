"""Two-pass extraction of a snapshot into validated, concept-bound atomic units.

Idempotent per (snapshot, provider, prompt version): the run row is claimed by a guarded
UPDATE, and a succeeded run is never redone. Pass 1 asks the provider for the page's context
(category, period); pass 2 for its units, each checked (knowledge.services.proposals) before
anything is stored, in one transaction per snapshot. What fails is kept as a rejected item
with its reason; what is valid but not bound to a concept goes to the unassigned triage list.

Kept whole: the run claim, both passes and the storing are one idempotency protocol, whose
steps read each other's state.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import time
from decimal import Decimal

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from knowledge.models import (
    AtomicUnit,
    Category,
    Concept,
    ExtractionItem,
    ExtractionJob,
    ExtractionRun,
    PageSnapshot,
    QualityFlag,
)
from knowledge.providers import (
    CategoryInfo,
    ConceptInfo,
    PageContext,
    PageInput,
    ProviderError,
    UnitProposal,
    get_provider,
)
from knowledge.services.applicability import snapshot_applicability_read
from knowledge.services.embed import concepts_embed
from knowledge.services.freshness import source_reverify
from knowledge.services.ingest import snapshot_recency
from knowledge.services.proposals import (
    checked_proposals_store,
    fingerprint,
    validate_proposal,
)
from knowledge.services.reextract import again_version, proposals_store_again

Run = ExtractionRun


class ExtractionFailed(Exception):
    def __init__(self, run: ExtractionRun):
        super().__init__(run.error)
        self.run = run


# --- runs and jobs --------------------------------------------------------------------------


def extraction_job_create(
    *, snapshot_ids: list[int], provider: str, created_by: str = "", again: bool = False
):
    """A job over the snapshots, with a run for each not extracted yet by this provider and
    prompt version; `again`: a new run for each, even where one exists (see reextract)."""
    if not snapshot_ids:
        raise ValueError("nothing to extract: no snapshots selected")
    job = ExtractionJob.objects.create(
        provider=provider, total=len(snapshot_ids), created_by=created_by
    )
    version = get_provider(provider).prompt_version
    if again:
        version = again_version(version, job.pk)
    for snapshot_id in snapshot_ids:
        run, _ = Run.objects.get_or_create(
            snapshot_id=snapshot_id,
            provider=provider,
            prompt_version=version,
            defaults={"job": job},
        )
        if run.job_id != job.pk and run.status != Run.Status.SUCCEEDED:
            Run.objects.filter(pk=run.pk).update(job=job)
    return job


def extraction_job_progress(*, job_id: int) -> dict:
    job = ExtractionJob.objects.get(pk=job_id)
    runs = Run.objects.filter(job=job)
    by_status = {status: runs.filter(status=status).count() for status in Run.Status.values}
    reused = job.total - runs.count()  # snapshots already extracted by an earlier job
    done = by_status["succeeded"] + by_status["failed"] + reused
    return {
        "job_id": job.pk,
        "total": job.total,
        "done": done,
        "percent": round(100 * done / job.total) if job.total else 100,
        "by_status": by_status,
        "finished": done >= job.total,
        "failures": list(
            runs.filter(status=Run.Status.FAILED).values_list("snapshot__source__url", "error")
        ),
    }


def snapshot_run_claim(*, snapshot_id: int, provider_name: str, prompt_version: str) -> Run | None:
    """The run to do now, or None when it succeeded already or another worker holds it."""
    run, _ = Run.objects.get_or_create(
        snapshot_id=snapshot_id, provider=provider_name, prompt_version=prompt_version
    )
    # A run still RUNNING after longer than any task may run was lost with its worker: the
    # same age at which the sweeper fails it, so a live run is never taken over.
    lost_before = timezone.now() - dt.timedelta(seconds=settings.JOB_STALE_AFTER_SECONDS)
    claimable = Q(status__in=[Run.Status.PENDING, Run.Status.FAILED]) | Q(
        status=Run.Status.RUNNING, started_at__lt=lost_before
    )
    claimed = Run.objects.filter(claimable, pk=run.pk).update(
        status=Run.Status.RUNNING, started_at=timezone.now(), attempts=F("attempts") + 1, error=""
    )
    return Run.objects.get(pk=run.pk) if claimed else None


def snapshot_extract(*, snapshot_id: int, provider=None, again_in_job: int | None = None) -> Run:
    """Both passes for one snapshot. Returns the run (existing one when already done).
    `again_in_job`: extract again as part of that job (knowledge.services.reextract), even
    where the page has a run of this provider and prompt version."""
    provider = provider or get_provider()
    version = provider.prompt_version
    if again_in_job is not None:
        version = again_version(version, again_in_job)

    def passes(run: Run) -> None:
        run_context_pass(run=run, provider=provider)
        run_units_pass(run=run, provider=provider, again=again_in_job is not None)

    return _run_once(snapshot_id, provider, version, passes)


def _run_once(snapshot_id: int, provider, version: str, passes) -> Run:
    """Claim the (snapshot, provider, version) run and do `passes` on it, or return the run
    that is done already or held by another worker. A claimed run never stays RUNNING."""
    run = snapshot_run_claim(
        snapshot_id=snapshot_id, provider_name=provider.name, prompt_version=version
    )
    if run is None:
        return Run.objects.get(
            snapshot_id=snapshot_id, provider=provider.name, prompt_version=version
        )
    try:
        passes(run)
    except ProviderError as exc:
        run_fail(run=run, reason=exc.reason)
        raise ExtractionFailed(run) from exc
    except Exception as exc:
        run_fail(run=run, reason=f"internal error: {type(exc).__name__}: {exc}")
        raise
    return run


def run_fail(*, run: Run, reason: str) -> None:
    Run.objects.filter(pk=run.pk).update(
        status=Run.Status.FAILED, error=reason[:4000], finished_at=timezone.now()
    )
    run.refresh_from_db()


# --- pass 1 -------------------------------------------------------------------------------


def run_context_pass(*, run: Run, provider) -> PageContext:
    started = time.perf_counter()
    page = page_input(run.snapshot)
    if Concept.objects.filter(status=Concept.Status.ACTIVE, embedding__isnull=True).exists():
        concepts_embed()  # binding by similarity needs every concept's vector
    categories, concepts = taxonomy_for_extraction()
    context, usage = provider.page_context(page=page, categories=categories, concepts=concepts)
    known = {category.slug for category in categories}
    if context.category not in known:
        raise ProviderError(f"pass 1 named an unknown category {context.category!r}")
    context.related_categories = [slug for slug in context.related_categories if slug in known]
    run.context = context.model_dump()
    run.model = usage.model
    _add_usage(run, usage)
    run.timings["pass1_seconds"] = round(time.perf_counter() - started, 4)
    run.save(
        update_fields=["context", "model", "prompt_tokens", "completion_tokens", "cost", "timings"]
    )
    return context


def is_cut_off(raw: object) -> bool:
    """True when the page as received says its text was capped mid-page (a stored excerpt's
    `completeness`)."""
    return isinstance(raw, dict) and raw.get("completeness") == "excerpt-truncated"


def page_input(snapshot: PageSnapshot) -> PageInput:
    return PageInput(
        title=snapshot.raw.get("title") or snapshot.source.title,
        url=snapshot.source.url,
        document_type=snapshot.source.document_type,
        text=snapshot.text,
        sections=snapshot.sections,
        period_hint=snapshot.period_hint,
        public_updated_at=snapshot.public_updated_at,
        cut_off=is_cut_off(snapshot.raw),
    )


def taxonomy_for_extraction() -> tuple[list[CategoryInfo], list[ConceptInfo]]:
    categories = [CategoryInfo(c.slug, c.name, c.description) for c in Category.objects.all()]
    concepts = [
        ConceptInfo(
            taxonomy_id=c.taxonomy_id,
            name=c.name,
            description=c.description,
            category=c.category.slug,
            vector=tuple(c.embedding) if c.embedding is not None else None,
        )
        for c in Concept.objects.filter(status=Concept.Status.ACTIVE).select_related("category")
    ]
    return categories, concepts


def _add_usage(run: Run, usage) -> None:
    run.prompt_tokens += usage.prompt_tokens
    run.completion_tokens += usage.completion_tokens
    prices = model_prices(usage.model or run.model)
    run.cost = Decimal(str(run.cost)) + (
        Decimal(usage.prompt_tokens) * Decimal(str(prices.get("input", 0)))
        + Decimal(usage.completion_tokens) * Decimal(str(prices.get("output", 0)))
    ) / Decimal(1_000_000)


def model_prices(model: str) -> dict:
    """Prices for a model as the API names it: OpenAI answers with dated names
    ('gpt-4o-mini-2024-07-18'), so the longest configured name it starts with wins."""
    table = settings.LLM_PRICES
    if model in table:
        return table[model]
    prefixes = [name for name in table if model.startswith(name + "-")]
    return table[max(prefixes, key=len)] if prefixes else {}


# --- pass 2 -------------------------------------------------------------------------------


def run_units_pass(*, run: Run, provider, again: bool = False) -> Run:
    started = time.perf_counter()
    snapshot = run.snapshot
    context = PageContext.model_validate(run.context)
    _, concepts = taxonomy_for_extraction()
    wanted = {context.category, *context.related_categories}
    page_concepts = [concept for concept in concepts if concept.category in wanted]
    proposals, usage = provider.extract_units(
        page=page_input(snapshot), context=context, concepts=page_concepts
    )
    _add_usage(run, usage)
    checked = [validate_proposal(proposal, snapshot=snapshot) for proposal in proposals]
    store = proposals_store_again if again else checked_proposals_store
    with transaction.atomic():
        units = store(run=run, snapshot=snapshot, proposals=proposals, checked=checked)
        snapshot_applicability_read(snapshot)
        _flag_older_snapshots(snapshot)
        if snapshot.source.current_snapshot_id != snapshot.pk:
            # Units of an earlier version, extracted after a newer one became current, are
            # looked up in the current version like the units it found there.
            source_reverify(source_id=snapshot.source_id)
        run.units_made = len(units)
        run.units_rejected = sum(1 for c in checked if c.kind == ExtractionItem.Kind.REJECTED)
        run.units_unassigned = sum(1 for c in checked if c.kind == ExtractionItem.Kind.UNASSIGNED)
        run.status = Run.Status.SUCCEEDED
        run.finished_at = timezone.now()
        run.timings["pass2_seconds"] = round(time.perf_counter() - started, 4)
        run.save()
    return run


# --- re-extraction for one category (after editors change its concepts) --------------------


def category_revision(category: Category) -> str:
    """A short stamp of the category and its active concepts: a new one after any approval,
    rename, merge or retirement, so re-extraction runs once per state of the taxonomy."""
    ids = sorted(
        Concept.objects.filter(category=category, status=Concept.Status.ACTIVE).values_list(
            "taxonomy_id", flat=True
        )
    )
    stamp = "\n".join([category.slug, *ids])
    return hashlib.sha256(stamp.encode()).hexdigest()[:12]


def snapshot_reextract_for_category(*, snapshot_id: int, category: Category, provider=None) -> Run:
    """Extract a snapshot again, binding only to `category`'s active concepts. Stores the
    units bound to them that the snapshot does not hold already (same normalised text);
    everything else was dealt with by the page's first extraction and is only counted.
    Idempotent per (snapshot, provider, prompt version, category revision)."""
    provider = provider or get_provider()
    version = f"{provider.prompt_version}+{category_revision(category)}"  # ≤ 32 characters

    def passes(run: Run) -> None:
        context = run_context_pass(run=run, provider=provider)
        context.category, context.related_categories = category.slug, []
        run.context = context.model_dump()
        run.save(update_fields=["context"])
        _category_units_pass(run=run, provider=provider, category=category)

    return _run_once(snapshot_id, provider, version, passes)


def _category_units_pass(*, run: Run, provider, category: Category) -> None:
    snapshot = run.snapshot
    context = PageContext.model_validate(run.context)
    _, concepts = taxonomy_for_extraction()
    own = [concept for concept in concepts if concept.category == category.slug]
    proposals, usage = provider.extract_units(
        page=page_input(snapshot), context=context, concepts=own
    )
    _add_usage(run, usage)
    held = set(snapshot.units.alive().values_list("fingerprint", flat=True))
    checked = [validate_proposal(proposal, snapshot=snapshot) for proposal in proposals]
    keep = [  # example links point into the whole list, so they are dropped here
        (dataclasses.replace(proposal, example_of=None), check)
        for proposal, check in zip(proposals, checked, strict=True)
        if not check.kind
        and check.concept.category_id == category.pk
        and fingerprint(proposal.text) not in held
    ]
    with transaction.atomic():
        units = checked_proposals_store(
            run=run, snapshot=snapshot, proposals=[p for p, _ in keep], checked=[c for _, c in keep]
        )
        snapshot_applicability_read(snapshot)
        run.units_made = len(units)
        run.units_rejected = sum(1 for c in checked if c.kind == ExtractionItem.Kind.REJECTED)
        run.units_unassigned = sum(1 for c in checked if c.kind == ExtractionItem.Kind.UNASSIGNED)
        run.status = Run.Status.SUCCEEDED
        run.finished_at = timezone.now()
        run.save()


class ProposalInvalid(ValueError):
    """A proposal that cannot become a unit; the message names the reason code."""


def proposal_from_item(item: ExtractionItem) -> UnitProposal:
    """The proposal an extraction item kept, as the provider made it."""
    data = dict(item.proposal)
    amount = data.pop("value_amount", None)
    candidates = [tuple(pair) for pair in data.pop("candidates", [])]
    known = {f.name for f in dataclasses.fields(UnitProposal)}
    return UnitProposal(
        **{key: value for key, value in data.items() if key in known},
        value_amount=None if amount in (None, "") else Decimal(str(amount)),
        candidates=candidates,
    )


def proposal_from_unit(unit: AtomicUnit) -> UnitProposal:
    """What a stored unit states, as a proposal again (to put it back on the triage list)."""
    return UnitProposal(
        unit_type=unit.unit_type,
        text=unit.text,
        concept_id=unit.concept.taxonomy_id,
        evidence_quote=unit.evidence_quote,
        valid_from=unit.valid_from.isoformat() if unit.valid_from else None,
        valid_to=unit.valid_to.isoformat() if unit.valid_to else None,
        value_amount=unit.value_amount,
        value_unit=unit.value_unit or None,
        value_period=unit.value_period or None,
        validity_basis=unit.validity_basis,
        figures=list(unit.figures),
    )


def proposal_store(*, proposal: UnitProposal, snapshot: PageSnapshot, run: Run) -> AtomicUnit:
    """Validate one proposal against its snapshot (quote, dates, amount, active concept) and
    store it as a unit with verified evidence; raises ProposalInvalid naming what fails."""
    check = validate_proposal(proposal, snapshot=snapshot)
    if check.kind:
        raise ProposalInvalid(f"{check.reason_code}: {check.reason}")
    with transaction.atomic():
        return checked_proposals_store(
            run=run, snapshot=snapshot, proposals=[proposal], checked=[check]
        )[0]


def _flag_older_snapshots(snapshot: PageSnapshot) -> None:
    """Units from older versions of this page stay, flagged for review (never deleted)."""
    newer_rank = snapshot_recency(snapshot)
    older = [
        other.pk
        for other in snapshot.source.snapshots.exclude(pk=snapshot.pk).only(
            "id", "public_updated_at", "period_hint", "fetched_at", "captured_on"
        )
        if snapshot_recency(other) < newer_rank
    ]
    units = AtomicUnit.objects.alive().filter(snapshot_id__in=older)
    QualityFlag.objects.bulk_create(
        [
            QualityFlag(
                unit=unit,
                kind=QualityFlag.Kind.SUPERSEDED_SNAPSHOT,
                reason=f"its page has a newer version (snapshot {snapshot.pk})",
            )
            for unit in units
        ],
        ignore_conflicts=True,
    )
