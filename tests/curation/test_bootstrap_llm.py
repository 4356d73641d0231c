"""Bootstrap mode with the `openai` provider: the settings point at the fake OpenAI-compatible
server, so the real client and real HTTP are exercised."""

import shutil
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from curation.models import AuditEvent
from curation.services.bootstrap import BootstrapRefused, concepts_bootstrap
from knowledge.models import Concept
from knowledge.services import ingest
from tests.factories import CategoryFactory, ConceptFactory
from tests.fake_openai import fake_openai_fixture, point_settings_at  # noqa: F401

pytestmark = pytest.mark.django_db
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "govuk"
PAGE = "https://www.gov.uk/lifetime-isa"
CHARGE = {
    "id_suffix": "withdrawal.charge",
    "name": "Withdrawal charge",
    "description": "The 25% charge on money taken out for anything but a first home or after 60.",
}
BONUS = {
    "id_suffix": "lisa.government_bonus",  # repeats the prefix: taken without it
    "name": "Government bonus",
    "description": "The 25% bonus on savings, up to £1,000 a year.",
}


@pytest.fixture
def llm(fake_openai, settings):
    point_settings_at(fake_openai, settings, LLM_MODEL_EXTRACT="reader")
    return fake_openai


@pytest.fixture
def new_category(tmp_path):
    """A category with one concept already and one real page of its own."""
    shutil.copy(FIXTURES / "lifetime-isa.json", tmp_path / "lifetime-isa.json")
    job = ingest.directory_job_create(root=tmp_path)
    for ref in job.refs:
        ingest.ingest_item_run(job_id=job.pk, ref=ref)
    category = CategoryFactory(slug="lifetime_isa_new", name="Lifetime ISA (new)")
    ConceptFactory(category=category, taxonomy_id="lisa.eligibility", name="Who can open one")
    return category


def bootstrap(category, **kwargs):
    return concepts_bootstrap(
        category_slug=category.slug, url_prefixes=[PAGE], prefix="lisa", provider="openai", **kwargs
    )


def test_llm_proposals_are_stored_as_proposed_without_claiming_to_be_heuristic(llm, new_category):
    llm.answer(
        {"concepts": [CHARGE, BONUS]}, model="reader", prompt_tokens=900, completion_tokens=80
    )
    report = bootstrap(new_category)
    assert report.proposed == ["lisa.withdrawal.charge", "lisa.government_bonus"]
    assert (report.provider, report.model, report.rejected) == ("openai", "reader", [])
    assert (report.pages, report.pages_read, report.prompt_tokens) == (1, 1, 900)
    charge = Concept.objects.get(taxonomy_id="lisa.withdrawal.charge")
    assert (charge.status, charge.name, charge.description) == (
        "proposed",
        CHARGE["name"],
        CHARGE["description"],
    )
    proposals = Concept.objects.filter(category=new_category, status="proposed")
    assert not any("heuristic" in c.description.lower() for c in proposals)
    event = AuditEvent.objects.get(action="concept.propose")
    assert event.summary.startswith("Bootstrap (openai, reader) proposed 2 concept(s)")
    prompt = llm.requests[0].prompt
    assert "lisa.eligibility: Who can open one" in prompt  # what exists already
    assert "Address: https://www.gov.uk/lifetime-isa" in prompt and "Headings: " in prompt


def test_invalid_proposals_are_dropped_and_counted_never_stored(llm, new_category):
    llm.answer(
        {
            "concepts": [
                CHARGE,
                {"id_suffix": "Bonus Amount", "name": "Bonus", "description": "The bonus you get."},
                {"id_suffix": "bonus", "name": "Bonus", "description": "Too short"},
                {
                    "id_suffix": "first_home",
                    "name": "",
                    "description": "Buying a first home with it.",
                },
                {
                    "id_suffix": "eligibility",
                    "name": "Eligibility",
                    "description": "Who can open one.",
                },
                CHARGE,
            ]
        }
    )
    report = bootstrap(new_category)
    assert report.proposed == ["lisa.withdrawal.charge"]
    assert report.existing == ["lisa.eligibility"]  # valid, but the id is taken
    assert len(report.rejected) == 4
    reasons = " | ".join(report.rejected)
    for why in (
        "'lisa.Bonus Amount': the id",
        "'lisa.bonus': the description is shorter",
        "'lisa.first_home': the name",
        "'lisa.withdrawal.charge': the answer proposes it twice",
    ):
        assert why in reasons
    assert set(
        Concept.objects.filter(category=new_category).values_list("taxonomy_id", flat=True)
    ) == {"lisa.eligibility", "lisa.withdrawal.charge"}


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (lambda fake: fake.answer("concepts: bonus, charge"), "not valid JSON"),
        (lambda fake: fake.answer({"concepts": [{"name": "Bonus"}]}), "does not match"),
        (lambda fake: fake.error(500, "upstream exploded"), "HTTP 500"),
    ],
)
def test_a_failed_answer_is_refused_and_stores_nothing(llm, new_category, reply, message):
    reply(llm)
    with pytest.raises(BootstrapRefused, match=f"provider openai: .*{message}"):
        bootstrap(new_category)
    assert Concept.objects.filter(category=new_category).count() == 1
    assert not AuditEvent.objects.filter(action="concept.propose").exists()


def test_the_heuristic_stays_the_default_whatever_llm_provider_says(llm, new_category, settings):
    settings.LLM_PROVIDER = "openai"
    report = concepts_bootstrap(category_slug=new_category.slug, url_prefixes=[PAGE], prefix="lisa")
    assert report.provider == "heuristic" and report.proposed and llm.count == 0


def test_the_command_asks_the_llm_and_reports_drops_and_tokens(llm, new_category, capsys):
    llm.answer(
        {"concepts": [CHARGE, {"id_suffix": "x", "name": "X", "description": "x"}]},
        model="reader",
        prompt_tokens=700,
        completion_tokens=60,
    )
    call_command(
        "bootstrap_concepts", new_category.slug, pages=[PAGE], prefix="lisa", provider="openai"
    )
    out = capsys.readouterr().out
    assert "proposed lisa.withdrawal.charge" in out and "dropped  'lisa.x'" in out
    assert "1 concepts proposed from 1 pages (openai)" in out
    assert "1 proposal(s) of the LLM dropped" in out
    assert "tokens: 700 prompt, 60 completion (reader)" in out
    llm.error(500, "upstream exploded")
    with pytest.raises(CommandError, match="provider openai: the LLM endpoint answered HTTP 500"):
        call_command("bootstrap_concepts", new_category.slug, pages=[PAGE], provider="openai")
