from django.contrib import admin

from curation.models import BootstrapJob, DetectionRun, SupersedingCandidate
from curation.services.detection import farther_pairs
from knowledge.admin import ReadOnlyAdmin


@admin.register(DetectionRun)
class DetectionRunAdmin(ReadOnlyAdmin):
    """The superseding detector's runs, with the funnel of what each stage let through."""

    list_display = [
        "id",
        "status",
        "provider",
        "concept",
        "started_at",
        "concepts_checked",
        "new_units",
        "pairs_considered",
        "pairs_known",
        "dropped_duplicates",
        "below_cosine",
        "order_undecidable",
        "adjudicated_not_same",
        "farther",
        "adjudication_errors",
        "proposed",
    ]
    list_filter = ["status", "provider"]
    list_select_related = ["concept"]
    readonly_fields = ["farther"]

    @admin.display(description="farther pairs")
    def farther(self, obj):
        """Same-rule pairs not asked about: a nearer version of the rule was proposed."""
        return farther_pairs(obj)


@admin.register(SupersedingCandidate)
class SupersedingCandidateAdmin(ReadOnlyAdmin):
    list_display = [
        "id",
        "concept",
        "older",
        "newer",
        "status",
        "confidence",
        "cosine",
        "text_similarity",
        "adjudicator",
        "newer_basis",
        "created_at",
    ]
    list_filter = ["status", "adjudicator", "newer_basis"]
    search_fields = ["concept__taxonomy_id", "older__text", "newer__text", "rationale"]
    list_select_related = ["concept", "older", "newer"]


@admin.register(BootstrapJob)
class BootstrapJobAdmin(ReadOnlyAdmin):
    """Editors' bootstrap work done by workers; the jobs screen shows it live."""

    list_display = [
        "id",
        "kind",
        "category",
        "status",
        "done",
        "total",
        "created_by",
        "created_at",
        "finished_at",
        "error",
    ]
    list_filter = ["status", "kind"]
    list_select_related = ["category", "created_by"]
