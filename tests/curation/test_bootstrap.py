"""Bootstrap mode: propose concepts from a new category's pages, approve, re-extract."""

import shutil
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from curation.services.bootstrap import BootstrapRefused, category_reextract, concepts_bootstrap
from curation.services.taxonomy import concept_approve, concept_merge, concept_rename
from knowledge.models import AtomicUnit, Concept
from knowledge.services import ingest
from tests.factories import CategoryFactory

pytestmark = pytest.mark.django_db
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "govuk"
PAGE = "https://www.gov.uk/lifetime-isa"


@pytest.fixture
def new_category(tmp_path):
    """A category with no taxonomy and one real page of its own."""
    shutil.copy(FIXTURES / "lifetime-isa.json", tmp_path / "lifetime-isa.json")
    job = ingest.directory_job_create(root=tmp_path)
    for ref in job.refs:
        ingest.ingest_item_run(job_id=job.pk, ref=ref)
    return CategoryFactory(slug="lifetime_isa_new", name="Lifetime ISA (new)")


def test_bootstrap_proposes_concepts_from_the_pages_headings(new_category):
    report = concepts_bootstrap(category_slug=new_category.slug, url_prefixes=[PAGE], prefix="lisa")
    proposed = Concept.objects.filter(category=new_category)
    assert report.pages == 1 and len(report.proposed) >= 3
    assert set(proposed.values_list("status", flat=True)) == {"proposed"}
    assert all(c.taxonomy_id.startswith("lisa.") for c in proposed)
    assert all("heuristic" in c.description for c in proposed)
    names = {c.name.lower() for c in proposed}
    assert "overview" not in names
    again = concepts_bootstrap(category_slug=new_category.slug, url_prefixes=[PAGE], prefix="lisa")
    assert again.proposed == [] and sorted(again.existing) == sorted(report.proposed)


def test_approved_proposals_bind_units_on_re_extraction(new_category, editor):
    concepts_bootstrap(category_slug=new_category.slug, url_prefixes=[PAGE], prefix="lisa")
    with pytest.raises(BootstrapRefused, match="approve some concepts first"):
        category_reextract(category_slug=new_category.slug, url_prefixes=[PAGE])
    proposals = list(Concept.objects.filter(category=new_category).order_by("pk"))
    concept_merge(concept_id=proposals[-1].pk, into_id=proposals[-2].pk, user=editor)
    concept_rename(concept_id=proposals[0].pk, new_id="lisa.first_topic", user=editor)
    for concept in proposals[:-1]:
        concept_approve(concept_id=concept.pk, user=editor)
    report = category_reextract(category_slug=new_category.slug, url_prefixes=[PAGE])
    units = AtomicUnit.objects.filter(concept__category=new_category)
    assert report.pages == 1 and report.units_made > 0 and units.count() == report.units_made
    assert set(units.values_list("concept__status", flat=True)) == {"active"}
    assert all(u.evidence_verified for u in units)
    made = units.count()
    category_reextract(category_slug=new_category.slug, url_prefixes=[PAGE])  # same taxonomy
    assert units.count() == made


def test_the_commands_report_and_refuse_bad_arguments(new_category, capsys):
    call_command("bootstrap_concepts", new_category.slug, pages=[PAGE], prefix="lisa", dry_run=True)
    assert "[dry run]" in capsys.readouterr().out
    assert not Concept.objects.filter(category=new_category).exists()
    with pytest.raises(CommandError, match="no category"):
        call_command("bootstrap_concepts", "nope")
    with pytest.raises(CommandError, match="no pages found"):
        call_command("bootstrap_concepts", new_category.slug, pages=["https://www.gov.uk/nothing"])
    with pytest.raises(CommandError, match="prefix"):
        call_command("bootstrap_concepts", new_category.slug, pages=[PAGE], prefix="Bad Prefix")
    with pytest.raises(CommandError, match="approve some concepts"):
        call_command("reextract_category", new_category.slug, pages=[PAGE])


def test_proposals_are_audited_editors_only_and_revert(new_category, editor, expert):
    from django.core.exceptions import PermissionDenied

    from curation.models import AuditEvent
    from curation.services.taxonomy import taxonomy_change_revert

    with pytest.raises(PermissionDenied):
        concepts_bootstrap(category_slug=new_category.slug, url_prefixes=[PAGE], user=expert)
    concepts_bootstrap(
        category_slug=new_category.slug, url_prefixes=[PAGE], prefix="lisa", user=editor
    )
    event = AuditEvent.objects.get(action="concept.propose")
    assert event.actor == editor and len(event.after["concept"]) >= 3
    taxonomy_change_revert(event_id=event.pk, user=editor)
    assert not Concept.objects.filter(category=new_category).exists()


def test_renaming_to_its_own_id_says_so(editor):
    from curation.services.taxonomy import TaxonomyChangeRefused
    from tests.factories import ConceptFactory

    concept = ConceptFactory(taxonomy_id="isa.same_id")
    with pytest.raises(TaxonomyChangeRefused, match="already its id"):
        concept_rename(concept_id=concept.pk, new_id="isa.same_id", user=editor)
