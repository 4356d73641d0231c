"""load_taxonomy: idempotent, retires concepts that hold units, refuses bad files whole."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

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


def test_edit_in_file_updates_by_id():
    load(SMALL)
    report = load(SMALL.replace("Which children can", "Which children under 18 can"))
    assert report.updated == ["isa.junior.eligibility"]
    concept = Concept.objects.get(taxonomy_id="isa.junior.eligibility")
    assert concept.description == "Which children under 18 can have a Junior ISA."


def test_concept_with_units_is_retired_not_deleted_and_comes_back_active():
    load(SMALL)
    concept = Concept.objects.get(taxonomy_id="isa.junior.eligibility")
    unit = UnitFactory(concept=concept)
    report = load(without(SMALL, "isa.junior.eligibility"))
    assert report.retired == ["isa.junior.eligibility"]
    concept.refresh_from_db()
    assert concept.status == Concept.Status.RETIRED
    unit.refresh_from_db()
    assert unit.concept_id == concept.pk
    assert load(SMALL).reinstated == ["isa.junior.eligibility"]


def test_concept_without_units_is_deleted_when_it_leaves_the_file():
    load(SMALL)
    report = load(without(SMALL, "isa.lifetime.withdrawal_penalty"))
    assert report.deleted == ["isa.lifetime.withdrawal_penalty"]
    assert not Concept.objects.filter(taxonomy_id="isa.lifetime.withdrawal_penalty").exists()


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
        (SMALL.replace("id: isa.allowance", "id: ISA Allowance"), "categories.0.concepts.0.id"),
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


def test_file_id_that_the_database_keeps_as_an_alias_is_refused_whole():
    load(SMALL)
    concept = Concept.objects.get(taxonomy_id="isa.junior.eligibility")
    concept.taxonomy_id = "isa.junior.who_can_open"
    concept.save()
    ConceptAlias.objects.create(alias="isa.junior.eligibility", concept=concept)
    with pytest.raises(TaxonomyError, match="renamed by an editor"):
        load(SMALL)
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
    with pytest.raises(CommandError, match="not found"):
        call_command("load_taxonomy", file=tmp_path / "missing.yaml")
