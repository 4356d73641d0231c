"""Binding measured on audit judgements: the labels come from the experts (right concept,
the concept they moved it to, or the one their note names), and the cross-validation keeps
each page's units on one side of a fold."""

import io
import json

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from curation.services.audit_sample import (
    ANSWER_FIELDS,
    audit_unit_move,
    judgement_record,
    sample_draw,
)
from evaluation.binding import (
    audit_file_labels,
    binding_cross_validation,
    binding_labels,
    margin_cross_validation,
)
from knowledge.extraction.binding import BindingWeights
from knowledge.models import ExtractionRun
from tests.factories import CategoryFactory, ConceptFactory, SnapshotFactory, UnitFactory

pytestmark = pytest.mark.django_db

ANSWERS = dict.fromkeys(ANSWER_FIELDS, "yes")


class WordEmbedder:
    """Vectors by topic word, so the test decides which concept a text is nearest."""

    TOPICS = ("allowance", "junior", "claim")

    def embed(self, texts):
        vectors = np.zeros((len(texts), 384), dtype=np.float32)
        for row, text in enumerate(texts):
            for column, word in enumerate(self.TOPICS):
                vectors[row, column] = text.lower().count(word)
            vectors[row, 383] = 0.1
            vectors[row] /= np.linalg.norm(vectors[row])
        return vectors


def _vector(column):
    vector = [0.0] * 384
    vector[column] = 1.0
    return vector


@pytest.fixture
def judged(expert, editor):
    category = CategoryFactory(slug="isa", name="ISAs")
    allowance = ConceptFactory(
        category=category, taxonomy_id="isa.allowance", name="ISA allowance", embedding=_vector(0)
    )
    junior = ConceptFactory(
        category=category, taxonomy_id="isa.junior", name="Junior ISA", embedding=_vector(1)
    )
    units = []
    for n, text in enumerate(
        [
            "The allowance is £20,000.",
            "A junior account is for children.",
            "Claim online.",
            "The allowance is per tax year.",
        ]
    ):
        snapshot = SnapshotFactory(text=text)
        run = ExtractionRun.objects.create(
            snapshot=snapshot,
            provider="heuristic",
            prompt_version="v2",
            context={"category": "isa", "related_categories": []},
        )
        concept = allowance if n != 1 else allowance  # the junior one is misfiled
        units.append(UnitFactory(concept=concept, snapshot=snapshot, extraction_run=run))
    sample = sample_draw(size=4, seed=3, user=expert)
    notes = {
        units[0].pk: ("yes", ""),
        units[1].pk: ("no", "belongs under isa.junior"),
        units[2].pk: ("no", "not about any ISA concept"),
        units[3].pk: ("no", "moved"),
    }
    for unit_id in sample.unit_ids:
        right, note = notes[unit_id]
        judgement_record(
            sample_id=sample.pk,
            unit_id=unit_id,
            user=expert,
            note=note,
            answers={**ANSWERS, "concept_right": right},
        )
    audit_unit_move(sample_id=sample.pk, unit_id=units[3].pk, concept_id=junior.pk, user=editor)
    return sample, units


def test_labels_come_from_the_experts_judgements(judged):
    sample, units = judged
    labels = {item.proposal.text: item.label for item in binding_labels(sample_id=sample.pk)}
    assert labels == {
        units[0].text: "isa.allowance",  # judged right where it is
        units[1].text: "isa.junior",  # the note names the right concept
        units[3].text: "isa.junior",  # moved from the audit
    }  # the unit with no better concept named is left out


def test_cross_validation_scores_the_current_weights_and_each_fold(judged):
    sample, _ = judged
    labelled = binding_labels(sample_id=sample.pk)
    grid = [BindingWeights(), BindingWeights(lexical=0.0, main=0.0)]
    report = binding_cross_validation(labelled, grid, embedder=WordEmbedder(), folds=3)
    assert report.labelled == 3 and report.pages == 3
    # the junior text is nearest the junior concept; "per tax year" is an allowance text
    # the expert moved to junior, which no weights reproduce
    assert report.current_hits == 2
    assert [size for _, _, size in report.folds] == [1, 1, 1]
    assert report.cross_validated_hits == 2


def test_the_margin_is_chosen_per_fold_as_the_smallest_reaching_the_precision(judged):
    sample, _ = judged
    labelled = binding_labels(sample_id=sample.pk)
    report = margin_cross_validation(
        labelled, [0.0, 0.5, 2.0], embedder=WordEmbedder(), target=0.9, folds=3
    )
    # every unit leads by a wide margin, the moved one (labelled junior) to the wrong concept
    assert [(row.margin, row.kept, row.right) for row in report.rows] == [
        (0.0, 3, 2),
        (0.5, 3, 2),
        (2.0, 0, 0),
    ]
    # a fold that trains on the wrong unit needs the widest margin to reach 90% and binds
    # nothing; the fold holding it out trains on the two right ones, takes the smallest
    # margin and binds its wrong unit: the held-out figure does not flatter
    assert sorted((margin, kept, right) for margin, kept, right, _ in report.folds) == [
        (0.0, 1, 0),
        (2.0, 0, 0),
        (2.0, 0, 0),
    ]
    assert report.cross_validated == (3, 1, 0)


def test_the_command_prints_the_margin_table_and_refuses_a_target_outside_0_to_1(
    judged, monkeypatch
):
    sample, _ = judged
    monkeypatch.setattr("knowledge.embeddings.get_embedder", WordEmbedder)
    out = io.StringIO()
    call_command("eval_binding", sample=sample.pk, folds=3, stdout=out)
    printed = out.getvalue()
    assert "margin 0.005: 3 bound, 2 right (67%)" in printed
    # no margin of the table reaches 90% on these wide leads: the widest is taken
    assert "Cross-validated: 2/3 bound units right (67%), 0 of 3 to triage" in printed
    with pytest.raises(CommandError, match="--target"):
        call_command("eval_binding", sample=sample.pk, target=1.5)


@pytest.fixture
def audit_file(tmp_path):
    """Two judged units of an audit file on a page this knowledge base holds, one on a page
    it does not; one judged wrong with its concept named, one wrong with none."""
    category = CategoryFactory(slug="isa", name="ISAs")
    for taxonomy_id, name in (("isa.allowance", "ISA allowance"), ("isa.junior", "Junior ISA")):
        ConceptFactory(category=category, taxonomy_id=taxonomy_id, name=name, embedding=_vector(0))
    text = "The allowance is £20,000. A junior account is for children. Claim online."
    snapshot = SnapshotFactory(text=text)
    ExtractionRun.objects.create(
        snapshot=snapshot,
        provider="heuristic",
        prompt_version="v2",
        context={"category": "isa", "related_categories": ["child_benefit"]},
    )
    url = snapshot.source.url

    def record(evidence, concept, answer, note="", source=url):
        judgement = {"concept_ok": answer, "note": note}
        return {
            "concept": concept,
            "type": "rule",
            "text": evidence,
            "value": None,
            "evidence": evidence,
            "source": source,
            "judgement": judgement,
        }

    records = [
        record("The allowance is £20,000.", "isa.allowance", "yes"),
        record("A junior account is for children.", "isa.allowance", "no", "isa.junior fits"),
        record("Claim online.", "isa.allowance", "no", "no ISA concept fits"),
        record("The allowance is £20,000.", "isa.allowance", "yes", source="https://x.test/a"),
    ]
    path = tmp_path / "audit.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path, snapshot


def test_an_audit_files_units_are_labelled_on_the_pages_held_here(audit_file):
    path, snapshot = audit_file

    labelled = audit_file_labels(path)

    assert [(item.proposal.text, item.label) for item in labelled] == [
        ("The allowance is £20,000.", "isa.allowance"),
        ("A junior account is for children.", "isa.junior"),
    ]
    assert labelled[0].page.url == snapshot.source.url
    assert labelled[0].allowed == {"isa", "child_benefit"} and labelled[0].main == "isa"


def test_a_line_that_is_not_an_audited_unit_is_named_by_the_command(tmp_path, db):
    path = tmp_path / "audit.jsonl"
    path.write_text('{"concept": "isa.allowance"}\n', encoding="utf-8")

    with pytest.raises(CommandError, match="line 1: not an audited unit"):
        call_command("eval_binding", audit_file=path)
    with pytest.raises(CommandError, match="no file"):
        call_command("eval_binding", audit_file=tmp_path / "missing.jsonl")
