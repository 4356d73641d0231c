"""load_taxonomy: creates what is missing, never undoes what the database holds (editors'
renames, edits, retirements, approvals, merges) but reports it, refuses bad files whole."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from curation.services.taxonomy import (
    concept_approve,
    concept_edit,
    concept_merge,
    concept_rename,
    concept_retire,
)
from knowledge.models import Category, Concept, ConceptAlias
from knowledge.services.taxonomy import (
    DEFAULT_TAXONOMY_FILE,
    TaxonomyError,
    taxonomy_load,
    taxonomy_load_file,
    taxonomy_parse,
)
from tests.factories import UnitFactory

pytestmark = pytest.mark.django_db

SMALL = """
version: 1
categories:
  - slug: isa
    name: ISAs & Junior ISAs
    description: Individual Savings Accounts.
    concepts:
      - id: isa.allowance
        name: ISA allowance
        description: The yearly amount an adult can pay into ISAs.
        aliases: [isa.annual_allowance]
      - id: isa.junior.eligibility
        name: Junior ISA eligibility
        description: Which children can have a Junior ISA.
      - id: isa.lifetime.withdrawal_penalty
        name: Lifetime ISA withdrawal charge
        description: The charge for taking money out of a Lifetime ISA early.
"""

NEW_CONCEPT = """
      - id: isa.transfers
        name: ISA transfers
        description: Moving ISA savings from one provider to another.
        aliases: [isa.transfer_rules]
"""


def load(text: str, **kwargs):
    return taxonomy_load(spec=taxonomy_parse(text=text), **kwargs)


def without(text: str, concept_id: str) -> str:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == f"- id: {concept_id}")
    end = start + 1
    while end < len(lines) and not lines[end].strip().startswith("- id:"):
        end += 1
    return "\n".join(lines[:start] + lines[end:])


def test_first_load_creates_then_second_load_changes_nothing():
    first = load(SMALL)
    assert sorted(first.created) == [
        "isa.allowance",
        "isa.junior.eligibility",
        "isa.lifetime.withdrawal_penalty",
    ]
    assert first.aliases_added == ["isa.annual_allowance"]
    second = load(SMALL)
    assert second.change_count == 0
    assert second.unchanged == 3


def test_edit_in_file_is_reported_and_the_database_kept():
    load(SMALL)
    report = load(SMALL.replace("Which children can", "Which children under 18 can"))
    assert report.change_count == 0
    assert report.unchanged == 2
    assert any(
        "isa.junior.eligibility: description" in line and "under 18" in line
        for line in report.differences
    )
    concept = Concept.objects.get(taxonomy_id="isa.junior.eligibility")
    assert concept.description == "Which children can have a Junior ISA."


def test_concepts_missing_from_the_file_are_kept_and_reported():
    load(SMALL)
    holding = Concept.objects.get(taxonomy_id="isa.junior.eligibility")
    UnitFactory(concept=holding)
    shorter = without(without(SMALL, "isa.junior.eligibility"), "isa.lifetime.withdrawal_penalty")
    report = load(shorter)
    assert report.change_count == 0
    assert sorted(line.split(":")[0] for line in report.differences) == [
        "isa.junior.eligibility",
        "isa.lifetime.withdrawal_penalty",
    ]
    assert set(Concept.objects.values_list("status", flat=True)) == {Concept.Status.ACTIVE}
    assert Concept.objects.count() == 3


def test_what_the_file_adds_is_created_beside_what_the_database_keeps():
    load(SMALL)
    Concept.objects.filter(taxonomy_id="isa.allowance").update(name="Edited by an editor")
    grown = SMALL + NEW_CONCEPT
    grown = grown.replace(
        "aliases: [isa.annual_allowance]", "aliases: [isa.annual_allowance, isa.yearly_limit]"
    )
    report = load(grown)
    assert report.created == ["isa.transfers"]
    assert sorted(report.aliases_added) == ["isa.transfer_rules", "isa.yearly_limit"]
    assert Concept.objects.get(taxonomy_id="isa.allowance").name == "Edited by an editor"
    assert ConceptAlias.objects.get(alias="isa.yearly_limit").concept.taxonomy_id == "isa.allowance"
    assert load(grown).change_count == 0


def test_proposed_concepts_from_bootstrap_are_left_alone():
    load(SMALL)
    Concept.objects.create(
        taxonomy_id="isa.proposed_thing",
        name="Proposed",
        description="Proposed by bootstrap mode.",
        category=Category.objects.get(slug="isa"),
        status=Concept.Status.PROPOSED,
    )
    assert load(SMALL).change_count == 0
    assert Concept.objects.filter(taxonomy_id="isa.proposed_thing").exists()


def test_dry_run_reports_but_changes_nothing():
    report = load(SMALL, dry_run=True)
    assert len(report.created) == 3
    assert Concept.objects.count() == 0


@pytest.mark.parametrize(
    "bad,message",
    [
        ("version: 1\ncategories: [", "not valid YAML"),
        (SMALL.replace("id: isa.allowance", "id: ISA Allowance"), r"concepts\[0\]\.id: String"),
        (SMALL.replace("isa.junior.eligibility", "isa.allowance"), "appears twice"),
        (SMALL.replace("[isa.annual_allowance]", "[isa.junior.eligibility]"), "appears twice"),
        (SMALL.replace("name: ISA allowance", "nam: ISA allowance"), "concepts.0"),
    ],
)
def test_bad_files_are_refused_with_a_message_naming_the_problem(bad, message):
    load(SMALL)
    with pytest.raises(TaxonomyError, match=message):
        load(bad)
    assert Concept.objects.count() == 3


def test_file_id_that_the_database_keeps_as_an_alias_is_reported_not_created_again():
    load(SMALL)
    concept = Concept.objects.get(taxonomy_id="isa.junior.eligibility")
    concept.taxonomy_id = "isa.junior.who_can_open"
    concept.save()
    ConceptAlias.objects.create(alias="isa.junior.eligibility", concept=concept)
    report = load(SMALL)
    assert report.change_count == 0
    assert any("now isa.junior.who_can_open" in line for line in report.differences)
    assert not Concept.objects.filter(taxonomy_id="isa.junior.eligibility").exists()


def test_project_taxonomy_has_23_categories_and_at_least_200_concepts():
    report = taxonomy_load_file(path=DEFAULT_TAXONOMY_FILE)
    assert Category.objects.count() == 23
    assert Concept.objects.filter(status=Concept.Status.ACTIVE).count() >= 200
    assert len(report.created) >= 200
    assert all(category.concepts.count() >= 5 for category in Category.objects.all())
    assert taxonomy_load_file(path=DEFAULT_TAXONOMY_FILE).change_count == 0


def test_command_prints_changes_and_fails_cleanly_on_a_missing_file(tmp_path):
    out = StringIO()
    path = tmp_path / "t.yaml"
    path.write_text(SMALL)
    call_command("load_taxonomy", file=path, stdout=out)
    assert "created: 3" in out.getvalue()
    call_command("load_taxonomy", file=path, stdout=(out := StringIO()))
    assert "0 changes" in out.getvalue()
    path.write_text(SMALL.replace("name: ISA allowance", "name: The ISA allowance"))
    call_command("load_taxonomy", file=path, stdout=(out := StringIO()))
    assert "isa.allowance: name differs" in out.getvalue()
    assert "0 changes, 2 concepts unchanged, 1 difference kept" in out.getvalue()
    with pytest.raises(CommandError, match="not found"):
        call_command("load_taxonomy", file=tmp_path / "missing.yaml")


# --- a load after editors' work ------------------------------------------------------------

EDITED_FILE = (
    SMALL
    + NEW_CONCEPT
    + """
      - id: isa.junior.transfers
        name: Junior ISA transfers
        description: Moving a Junior ISA from one provider to another.
      - id: isa.flexible
        name: Flexible ISAs
        description: Paying back money taken out of a flexible ISA in the same year.
        status: proposed
"""
)


def test_a_load_after_editors_changes_keeps_every_change_and_reports_it(tmp_path, editor):
    """The start of a container used to rerun the load: a rename made it fail, and edits,
    retirements, approvals and merges were undone without an audit entry."""
    path = tmp_path / "taxonomy.yaml"
    path.write_text(EDITED_FILE)
    call_command("load_taxonomy", file=path, stdout=StringIO())
    concept = {c.taxonomy_id: c for c in Concept.objects.all()}
    isa = Category.objects.get(slug="isa")
    bootstrap = Concept.objects.create(
        taxonomy_id="isa.bootstrap.mortgage_deposit",
        name="Deposit",
        category=isa,
        description="Using a Lifetime ISA for a first home.",
        status=Concept.Status.PROPOSED,
    )
    UnitFactory(concept=bootstrap)
    concept_rename(
        concept_id=concept["isa.allowance"].pk, new_id="isa.yearly_allowance", user=editor
    )
    concept_edit(
        concept_id=concept["isa.junior.eligibility"].pk,
        name="Who can have a Junior ISA",
        description="Children under 18 living in the UK.",
        user=editor,
    )
    concept_retire(concept_id=concept["isa.lifetime.withdrawal_penalty"].pk, user=editor)
    concept_approve(concept_id=bootstrap.pk, user=editor)
    concept_approve(concept_id=concept["isa.flexible"].pk, user=editor)
    concept_merge(
        concept_id=concept["isa.junior.transfers"].pk,
        into_id=concept["isa.transfers"].pk,
        user=editor,
    )
    before = sorted(
        Concept.objects.values_list(
            "pk", "taxonomy_id", "name", "description", "status", "category_id"
        )
    )
    aliases = sorted(ConceptAlias.objects.values_list("alias", "concept_id"))

    out = StringIO()
    call_command("load_taxonomy", file=path, stdout=out)  # raises CommandError on failure

    after = sorted(
        Concept.objects.values_list(
            "pk", "taxonomy_id", "name", "description", "status", "category_id"
        )
    )
    assert after == before
    assert sorted(ConceptAlias.objects.values_list("alias", "concept_id")) == aliases
    printed = out.getvalue()
    assert "taxonomy: 0 changes" in printed
    for difference in [
        "isa.allowance: renamed or merged by an editor, now isa.yearly_allowance",
        "isa.junior.eligibility: name differs",
        "isa.junior.eligibility: description differs",
        "isa.lifetime.withdrawal_penalty: status differs: database 'retired', file 'active'",
        "isa.flexible: status differs: database 'active', file 'proposed'",
        "isa.junior.transfers: renamed or merged by an editor, now isa.transfers",
        "isa.bootstrap.mortgage_deposit: in the database (active), not in the file",
    ]:
        assert difference in printed


def test_a_second_load_of_the_whole_taxonomy_reads_it_in_a_few_queries(db):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    call_command("load_taxonomy", stdout=StringIO())
    concepts = Concept.objects.count()
    with CaptureQueriesContext(connection) as captured:
        call_command("load_taxonomy", stdout=StringIO())
    assert concepts > 200
    assert len(captured) < 20  # not one per concept
