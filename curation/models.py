"""Human-in-the-loop records: superseding proposals and their decisions, detector runs, and
the audit trail every decision and edit writes."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Greatest, Least

from knowledge.models import AtomicUnit, Category, Concept


class DetectionRun(models.Model):
    """One pass of the superseding detector, with its funnel (what each stage let through)."""

    class Status(models.TextChoices):
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    status = models.CharField(max_length=16, choices=Status.choices, default=Status.RUNNING)
    provider = models.CharField(max_length=32)
    provider_model = models.CharField(max_length=100, blank=True)
    concept = models.ForeignKey(
        Concept, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    concepts_checked = models.PositiveIntegerField(default=0)
    new_units = models.PositiveIntegerField(default=0)
    pairs_considered = models.PositiveIntegerField(default=0)
    pairs_known = models.PositiveIntegerField(default=0, help_text="Already proposed or decided")
    dropped_duplicates = models.PositiveIntegerField(default=0)
    below_cosine = models.PositiveIntegerField(default=0)
    order_undecidable = models.PositiveIntegerField(default=0)
    adjudicated_not_same = models.PositiveIntegerField(default=0)
    proposed = models.PositiveIntegerField(default=0)
    adjudication_errors = models.PositiveIntegerField(default=0)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-started_at"]

    def __str__(self) -> str:
        return f"detection run {self.pk} ({self.status})"


class UnitDetectorCheck(models.Model):
    """A unit the detector has compared with its concept's other units: later runs compare
    only new units (against all), so a run costs what changed, not the whole base."""

    unit = models.OneToOneField(AtomicUnit, on_delete=models.CASCADE, related_name="+")
    run = models.ForeignKey(DetectionRun, on_delete=models.CASCADE, related_name="+")

    def __str__(self) -> str:
        return f"unit {self.unit_id} checked in run {self.run_id}"


class SupersedingCandidate(models.Model):
    """A proposal that `newer` replaces `older` (the same rule at a later time)."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        APPROVED = "approved", "Approved"
        REJECTED = "rejected", "Rejected"
        FLAGGED = "flagged_for_deletion", "Flagged for deletion"

    older = models.ForeignKey(AtomicUnit, on_delete=models.PROTECT, related_name="+")
    newer = models.ForeignKey(AtomicUnit, on_delete=models.PROTECT, related_name="+")
    concept = models.ForeignKey(Concept, on_delete=models.PROTECT, related_name="+")
    text_similarity = models.FloatField()
    cosine = models.FloatField()
    same_rule = models.BooleanField(help_text="The adjudicator's verdict")
    confidence = models.FloatField()
    rationale = models.TextField()
    adjudicator = models.CharField(max_length=32, help_text="heuristic or openai")
    adjudicator_model = models.CharField(max_length=100, blank=True)
    newer_basis = models.CharField(
        max_length=40, help_text="What decided which unit is newer (validity, snapshot date)"
    )
    run = models.ForeignKey(
        DetectionRun, on_delete=models.SET_NULL, null=True, blank=True, related_name="candidates"
    )
    status = models.CharField(max_length=24, choices=Status.choices, default=Status.PENDING)
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-confidence", "id"]
        permissions = [("decide_supersedingcandidate", "Can decide superseding candidates")]
        constraints = [
            # One row per unordered pair: a rejected pair is never proposed again either way.
            models.UniqueConstraint(
                Least("older", "newer"), Greatest("older", "newer"), name="candidate_pair_once"
            ),
            models.CheckConstraint(
                condition=~Q(older=models.F("newer")), name="candidate_two_units"
            ),
            models.CheckConstraint(
                condition=Q(status="pending", decided_at__isnull=True)
                | (~Q(status="pending") & Q(decided_at__isnull=False)),
                name="candidate_decided_has_time",
            ),
            models.CheckConstraint(
                condition=Q(confidence__gte=0, confidence__lte=1), name="candidate_confidence_0_1"
            ),
        ]
        indexes = [models.Index(fields=["status", "concept"], name="candidate_status_idx")]

    def __str__(self) -> str:
        return f"{self.newer_id} replaces {self.older_id} ({self.status})"


class AuditEvent(models.Model):
    """Who changed what, when, with the state before and after. `before` holds every field
    the change touched, so a revert can put it back exactly."""

    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, related_name="+"
    )
    action = models.CharField(max_length=60)
    target_type = models.CharField(max_length=60)
    target_id = models.BigIntegerField()
    summary = models.TextField()
    note = models.TextField(blank=True)
    before = models.JSONField(default=dict)
    after = models.JSONField(default=dict)
    reverts = models.OneToOneField(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="reverted_by"
    )
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["target_type", "target_id"], name="audit_target_idx")]

    def __str__(self) -> str:
        return f"{self.action} on {self.target_type} {self.target_id}"


class BootstrapJob(models.Model):
    """An editor's bootstrap work on a category, done by a worker rather than inside the web
    request (it may call an LLM for minutes): proposing concepts, or re-extracting its pages.
    The jobs screen shows its progress; `params` are the arguments the editor gave."""

    class Kind(models.TextChoices):
        PROPOSE = "propose", "Propose concepts"
        REEXTRACT = "reextract", "Re-extract pages"

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        FINISHED = "finished", "Finished"
        FAILED = "failed", "Failed"

    kind = models.CharField(max_length=16, choices=Kind.choices)
    category = models.ForeignKey(Category, on_delete=models.CASCADE, related_name="+")
    params = models.JSONField(default=dict)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    total = models.PositiveIntegerField(default=0, help_text="Steps (pages) once known")
    done = models.PositiveIntegerField(default=0)
    outcome = models.TextField(blank=True)
    details = models.JSONField(default=list)
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"bootstrap job {self.pk} ({self.kind} {self.category_id}, {self.status})"


class AuditSample(models.Model):
    """A random sample of living units drawn to measure the knowledge base's precision:
    stratified by category (proportionally, at least one per category where N allows) and
    seeded, so the same seed on the same knowledge base draws the same units."""

    seed = models.BigIntegerField()
    size = models.PositiveIntegerField(help_text="N asked for")
    category = models.ForeignKey(
        Category, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    provider = models.CharField(max_length=16, blank=True, help_text="Only this provider's units")
    population = models.PositiveIntegerField(default=0, help_text="Living units it was drawn from")
    stratification = models.JSONField(
        default=dict, help_text="Per category slug: living units and units drawn"
    )
    unit_ids = models.JSONField(default=list, help_text="The units drawn, in judging order")
    drawn_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    drawn_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-drawn_at", "-id"]
        permissions = [("judge_auditsample", "Can draw and judge audit samples")]

    def __str__(self) -> str:
        return f"audit sample {self.pk} (N={self.size}, seed {self.seed})"


class AuditJudgement(models.Model):
    """One judge's six answers on one unit of a sample. The unit's category, provider and
    type are kept as they were when judged, so a fix made afterwards (a move) does not
    rewrite what was measured."""

    class Answer(models.TextChoices):
        YES = "yes", "Yes"
        NO = "no", "No"
        NA = "na", "Not applicable"

    sample = models.ForeignKey(AuditSample, on_delete=models.CASCADE, related_name="judgements")
    unit = models.ForeignKey(AtomicUnit, on_delete=models.PROTECT, related_name="+")
    concept_right = models.CharField(max_length=3, choices=Answer.choices)
    standalone = models.CharField(max_length=3, choices=Answer.choices)
    type_right = models.CharField(max_length=3, choices=Answer.choices)
    value_right = models.CharField(max_length=3, choices=Answer.choices)
    validity_right = models.CharField(max_length=3, choices=Answer.choices)
    useful = models.CharField(max_length=3, choices=Answer.choices)
    note = models.TextField(blank=True)
    category = models.ForeignKey(
        Category, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    provider = models.CharField(max_length=16, blank=True)
    unit_type = models.CharField(max_length=16, blank=True)
    judged_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    judged_at = models.DateTimeField()

    class Meta:
        ordering = ["sample", "id"]
        constraints = [
            models.UniqueConstraint(fields=["sample", "unit"], name="judgement_once_per_sample"),
        ]

    def __str__(self) -> str:
        return f"judgement of unit {self.unit_id} in sample {self.sample_id}"
