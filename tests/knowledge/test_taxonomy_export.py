"""Taxonomy export → import: a round trip changes nothing; edits show up as changes."""

import json

import pytest
import yaml
from django.core.management import CommandError, call_command

from knowledge.models import Concept, ConceptAlias
from knowledge.services.taxonomy import taxonomy_load_file
from tests.factories import ConceptFactory, UnitFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def curated_taxonomy():
    """The project's taxonomy after an editor's rename and a bootstrap proposal."""
    taxonomy_load_file()
    concept = Concept.objects.get(taxonomy_id="isa.transfers")
    UnitFactory(concept=concept)
    concept.taxonomy_id = "isa.transfer_rules"
    concept.save()
    ConceptAlias.objects.create(alias="isa.transfers", concept=concept)
    ConceptFactory(
        category=concept.category,
        taxonomy_id="isa.bootstrap_proposal",
        status=Concept.Status.PROPOSED,
    )


@pytest.mark.parametrize("suffix", ["yaml", "json"])
def test_export_then_import_changes_nothing(curated_taxonomy, tmp_path, capsys, suffix):
    path = tmp_path / f"taxonomy.{suffix}"
    call_command("export_taxonomy", file=path)
    before = sorted(Concept.objects.values_list("taxonomy_id", "status", "name", "description"))
    aliases = sorted(ConceptAlias.objects.values_list("alias", "concept__taxonomy_id"))
    capsys.readouterr()
    call_command("import_taxonomy", str(path))
    assert "taxonomy: 0 changes" in capsys.readouterr().out
    assert (
        sorted(Concept.objects.values_list("taxonomy_id", "status", "name", "description"))
        == before
    )
    assert sorted(ConceptAlias.objects.values_list("alias", "concept__taxonomy_id")) == aliases
    data = json.loads(path.read_text()) if suffix == "json" else yaml.safe_load(path.read_text())
    isa = next(
        c for c in data["categories"] if any(x["id"] == "isa.transfer_rules" for x in c["concepts"])
    )
    exported = {x["id"]: x for x in isa["concepts"]}
    assert "isa.transfers" in exported["isa.transfer_rules"]["aliases"]
    assert exported["isa.bootstrap_proposal"]["status"] == "proposed"


def test_an_edited_file_imports_only_what_is_new_and_reports_the_rest(
    curated_taxonomy, tmp_path, capsys
):
    """Renames, edits and approvals belong to the editors' audited screens: an import
    creates what the database lacks and reports where the file differs from it."""
    path = tmp_path / "taxonomy.yaml"
    call_command("export_taxonomy", file=path)
    data = yaml.safe_load(path.read_text())
    concept = data["categories"][0]["concepts"][0]
    concept["name"] = "A clearer name"
    for category in data["categories"]:
        for item in category["concepts"]:
            item.pop("status", None)  # approve the proposal in the file
    data["categories"][0]["concepts"].append(
        {"id": "zz.new_concept", "name": "New", "description": "A concept new in the file."}
    )
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    capsys.readouterr()
    call_command("import_taxonomy", str(path), dry_run=True)
    printed = capsys.readouterr().out
    assert "[dry run] taxonomy: 1 changes" in printed and "2 differences kept" in printed
    assert not Concept.objects.filter(taxonomy_id="zz.new_concept").exists()
    call_command("import_taxonomy", str(path))
    printed = capsys.readouterr().out
    assert f"{concept['id']}: name differs" in printed
    assert "isa.bootstrap_proposal: status differs: database 'proposed', file 'active'" in printed
    assert Concept.objects.get(taxonomy_id=concept["id"]).name != "A clearer name"
    assert Concept.objects.get(taxonomy_id="isa.bootstrap_proposal").status == "proposed"
    assert Concept.objects.filter(taxonomy_id="zz.new_concept", status="active").exists()


def test_a_merged_away_concept_survives_an_import(curated_taxonomy, tmp_path):
    retired = ConceptFactory(taxonomy_id="retired.merged_1", status=Concept.Status.RETIRED)
    path = tmp_path / "taxonomy.yaml"
    call_command("export_taxonomy", file=path)
    call_command("import_taxonomy", str(path))
    assert Concept.objects.filter(pk=retired.pk).exists()


def test_bad_files_are_refused_by_name(db, tmp_path):
    broken = tmp_path / "broken.yaml"
    broken.write_text(
        "version: 1\ncategories:\n  - slug: Bad Slug\n    name: x\n    concepts: []\n"
    )
    with pytest.raises(CommandError, match="slug"):
        call_command("import_taxonomy", str(broken))
    with pytest.raises(CommandError, match="not found"):
        call_command("import_taxonomy", str(tmp_path / "missing.yaml"))
    with pytest.raises(CommandError, match="no such directory"):
        call_command("export_taxonomy", file=tmp_path / "nowhere" / "t.yaml")
