"""The glossary and life-event map: carried by the taxonomy file (loaded without duplicates,
refused whole when wrong, exported back), and read into the query vocabulary, whose cache
notices an editor's change."""

from __future__ import annotations

import pytest
import yaml

from knowledge.domain.questions import LifeEventInfo
from knowledge.models import Category, Concept, GlossaryTerm, LifeEvent, VocabularyChange
from knowledge.query import vocabulary as vocabulary_module
from knowledge.query.vocabulary import query_vocabulary, topic_names
from knowledge.services.taxonomy import (
    DEFAULT_TAXONOMY_FILE,
    TaxonomyError,
    taxonomy_dump,
    taxonomy_export,
    taxonomy_load,
    taxonomy_load_file,
    taxonomy_parse,
)
from knowledge.text.glossary import GlossaryEntry, phrase_pattern

SMALL = """
version: 1
categories:
  - slug: isa
    name: ISAs
    description: Individual Savings Accounts.
    concepts:
      - id: isa.allowance
        name: ISA allowance
        description: The yearly amount an adult can pay into ISAs.
        aliases: [isa.annual_allowance]
      - id: isa.junior.annual_limit
        name: Junior ISA annual limit
        description: The yearly amount that can be paid into a Junior ISA.
  - slug: income_tax
    name: Income Tax
    concepts:
      - id: income_tax.personal_allowance
        name: Personal Allowance
        description: The income a person can have each year before paying Income Tax.
glossary:
  - {term: ISA, means: Individual Savings Account, category: isa}
  - {term: JISA, means: Junior ISA, concept: isa.junior.annual_limit}
  - {term: PA, means: Personal Allowance, match_case: true, concept: income_tax.personal_allowance}
  - {term: allowance limit, means: ISA allowance, concept: isa.annual_allowance}
life_events:
  - slug: saving_up
    name: Saving for the future
    triggers: [savings, save money, nest egg]
    searches:
      - ISA allowance
      - Junior ISA annual limit
      - Personal Savings Allowance tax on interest
"""
RETIRING = """  - slug: retiring
    name: Retiring
    triggers: [retire, retirement]
    searches: [State Pension, Pension Credit, taking money from a pension]
"""


def load(text: str = SMALL, **kwargs):
    return taxonomy_load(spec=taxonomy_parse(text=text), **kwargs)


def glossary_rows() -> set[tuple]:
    return set(
        GlossaryTerm.objects.values_list(
            "term", "means", "match_case", "concept__taxonomy_id", "category__slug"
        )
    )


def counts() -> tuple[int, ...]:
    return tuple(model.objects.count() for model in (Category, Concept, GlossaryTerm, LifeEvent))


# --- loading ------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_load_creates_the_glossary_and_life_events_and_a_second_adds_nothing():
    first = load()

    assert sorted(first.glossary_added) == [
        "ISA → Individual Savings Account",
        "JISA → Junior ISA",
        "PA → Personal Allowance",
        "allowance limit → ISA allowance",
    ]
    assert first.life_events_added == ["saving_up"]
    assert glossary_rows() == {
        ("ISA", "Individual Savings Account", False, None, "isa"),
        ("JISA", "Junior ISA", False, "isa.junior.annual_limit", None),
        ("PA", "Personal Allowance", True, "income_tax.personal_allowance", None),
        # Named by an alias in the file, held against the concept the alias names.
        ("allowance limit", "ISA allowance", False, "isa.allowance", None),
    }
    event = LifeEvent.objects.get()
    assert (event.slug, event.name) == ("saving_up", "Saving for the future")
    assert event.triggers == ["savings", "save money", "nest egg"]
    assert len(event.searches) == 3

    before = counts()
    second = load()

    assert (second.glossary_added, second.life_events_added, second.change_count) == ([], [], 0)
    assert counts() == before


@pytest.mark.django_db
def test_the_real_taxonomy_file_loads_its_glossary_and_life_events_once():
    first = taxonomy_load_file()
    spec = taxonomy_parse(text=DEFAULT_TAXONOMY_FILE.read_text(encoding="utf-8"))

    assert len(first.glossary_added) == len(spec.glossary) == GlossaryTerm.objects.count() > 0
    assert len(first.life_events_added) == len(spec.life_events) == LifeEvent.objects.count()
    assert all(3 <= len(event.searches) <= 5 for event in LifeEvent.objects.all())
    assert set(GlossaryTerm.objects.filter(term="MA").values_list("means", flat=True)) == {
        "Marriage Allowance",
        "Maternity Allowance",
    }

    again = taxonomy_load_file()

    assert (again.glossary_added, again.life_events_added) == ([], [])
    assert GlossaryTerm.objects.count() == len(spec.glossary)


@pytest.mark.django_db
def test_a_reading_held_in_other_capitals_is_not_added_again():
    load()

    report = load(
        SMALL.replace("{term: JISA, means: Junior ISA,", "{term: jisa, means: junior isa,")
    )

    assert report.glossary_added == []
    assert GlossaryTerm.objects.filter(term__iexact="jisa").count() == 1


@pytest.mark.django_db
def test_an_editors_change_is_kept_when_the_file_is_loaded_again():
    load()
    GlossaryTerm.objects.get(term="JISA").delete()
    event = LifeEvent.objects.get(slug="saving_up")
    event.name = "Saving money (edited)"
    event.save()

    report = load()

    # The file adds back only what is missing, and leaves an edited row as it is.
    assert report.glossary_added == ["JISA → Junior ISA"]
    assert report.life_events_added == []
    assert LifeEvent.objects.get(slug="saving_up").name == "Saving money (edited)"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("entry", "named"),
    [
        (
            "{term: LISA, means: Lifetime ISA, concept: isa.lifetime.annual_limit}",
            "glossary term 'LISA': no concept 'isa.lifetime.annual_limit'",
        ),
        (
            "{term: CGT, means: Capital Gains Tax, category: cgt}",
            "glossary term 'CGT': no category 'cgt'",
        ),
    ],
)
def test_a_glossary_entry_naming_an_unknown_concept_fails_and_changes_nothing(entry, named):
    text = SMALL.replace("glossary:\n", f"glossary:\n  - {entry}\n")

    with pytest.raises(TaxonomyError) as raised:
        load(text)

    assert named in str(raised.value)
    assert counts() == (0, 0, 0, 0)  # the categories and concepts before it rolled back too


@pytest.mark.django_db
def test_an_unknown_concept_in_a_later_load_leaves_the_earlier_load_as_it_was():
    load()
    before = (counts(), glossary_rows())
    grown = (
        SMALL.replace(
            "life_events:\n",
            "  - {term: HICBC, means: High Income Child Benefit Charge, concept: cb.hicbc}\n"
            "life_events:\n",
        )
        + RETIRING
    )

    with pytest.raises(TaxonomyError, match="no concept 'cb.hicbc'"):
        load(grown)

    assert (counts(), glossary_rows()) == before


@pytest.mark.parametrize(
    ("broken", "named"),
    [
        (SMALL.replace("      - Personal Savings Allowance tax on interest\n", ""), "searches"),
        (SMALL.replace("triggers: [savings, save money, nest egg]", "triggers: []"), "triggers"),
        (SMALL.replace("slug: saving_up", "slug: Saving Up"), "slug"),
        (SMALL.replace("{term: ISA, means", "{term: ISA, meaning"), r"glossary\[0\]\.means: "),
    ],
)
def test_a_malformed_glossary_or_life_event_is_refused_by_name(broken, named):
    with pytest.raises(TaxonomyError, match=named):
        taxonomy_parse(text=broken)


@pytest.mark.django_db
def test_a_life_event_slug_twice_in_the_file_is_a_taxonomy_error():
    twice = SMALL + (
        "  - slug: saving_up\n    name: Saving again\n    triggers: [savings account]\n"
        "    searches: [cash ISA, stocks and shares ISA, Lifetime ISA]\n"
    )

    with pytest.raises(TaxonomyError, match="saving_up"):
        load(twice)


@pytest.mark.django_db
def test_a_dry_run_adds_no_glossary_or_life_event():
    report = load(dry_run=True)

    assert len(report.glossary_added) == 4
    assert report.life_events_added == ["saving_up"]
    assert counts() == (0, 0, 0, 0)


# --- export -------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_export_holds_the_glossary_and_life_events():
    load()

    exported = taxonomy_export()

    assert exported["glossary"] == [
        {"term": "ISA", "means": "Individual Savings Account", "category": "isa"},
        {"term": "JISA", "means": "Junior ISA", "concept": "isa.junior.annual_limit"},
        {
            "term": "PA",
            "means": "Personal Allowance",
            "match_case": True,
            "concept": "income_tax.personal_allowance",
        },
        {"term": "allowance limit", "means": "ISA allowance", "concept": "isa.allowance"},
    ]
    assert exported["life_events"] == [
        {
            "slug": "saving_up",
            "name": "Saving for the future",
            "triggers": ["savings", "save money", "nest egg"],
            "searches": [
                "ISA allowance",
                "Junior ISA annual limit",
                "Personal Savings Allowance tax on interest",
            ],
        }
    ]


@pytest.mark.django_db
@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_the_real_file_round_trips_through_export(fmt):
    taxonomy_load_file()
    spec = taxonomy_parse(text=DEFAULT_TAXONOMY_FILE.read_text(encoding="utf-8"))

    dumped = taxonomy_dump(fmt=fmt)
    again = taxonomy_parse(text=dumped, origin=f"export.{fmt}")

    def readings(entries):
        return {(e.term, e.means, e.match_case) for e in entries}

    def events(entries):
        return {(e.slug, e.name, tuple(e.triggers), tuple(e.searches)) for e in entries}

    assert readings(again.glossary) == readings(spec.glossary)
    assert events(again.life_events) == events(spec.life_events)
    assert "glossary" in yaml.safe_load(dumped) and "life_events" in yaml.safe_load(dumped)
    report = taxonomy_load(spec=again)
    assert (report.glossary_added, report.life_events_added, report.change_count) == ([], [], 0)


@pytest.mark.django_db
def test_an_exported_file_loads_into_an_empty_database_whole():
    load()
    exported = taxonomy_dump(fmt="yaml")
    wanted = glossary_rows()
    GlossaryTerm.objects.all().delete()
    LifeEvent.objects.all().delete()

    report = taxonomy_load(spec=taxonomy_parse(text=exported))

    assert len(report.glossary_added) == 4
    assert report.life_events_added == ["saving_up"]
    assert glossary_rows() == wanted


# --- the query vocabulary -----------------------------------------------------------------------


@pytest.mark.django_db
def test_the_vocabulary_holds_what_the_database_holds():
    load()

    vocabulary = query_vocabulary()

    assert {(c.slug, c.name) for c in vocabulary.categories} == {
        ("isa", "ISAs"),
        ("income_tax", "Income Tax"),
    }
    assert (
        GlossaryEntry("JISA", "Junior ISA", False, "isa.junior.annual_limit", None)
        in vocabulary.glossary
    )
    assert GlossaryEntry(
        "PA", "Personal Allowance", True, "income_tax.personal_allowance", None
    ) in (vocabulary.glossary)
    assert vocabulary.life_events == (
        LifeEventInfo(
            "saving_up",
            "Saving for the future",
            ("savings", "save money", "nest egg"),
            (
                "ISA allowance",
                "Junior ISA annual limit",
                "Personal Savings Allowance tax on interest",
            ),
        ),
    )
    # Concept names and glossary meanings of two words or more.
    assert set(vocabulary.topic_names) == {
        "isa allowance",
        "junior isa annual limit",
        "personal allowance",
        "individual savings account",
        "junior isa",
    }


@pytest.mark.django_db
def test_the_vocabulary_is_read_once_while_nothing_changes(django_assert_num_queries):
    load()
    first = query_vocabulary()

    with django_assert_num_queries(1):  # only the check that nothing changed
        second = query_vocabulary()

    assert second is first


@pytest.mark.django_db
def test_within_the_check_interval_the_vocabulary_costs_no_query(
    settings, monkeypatch, django_assert_num_queries
):
    """Production checks for an editor's change at most every few seconds, so a request
    asks the database nothing; once the interval has passed the change is seen."""
    settings.QUERY_VOCABULARY_CHECK_SECONDS = 2.0
    clock = [1000.0]
    monkeypatch.setattr(vocabulary_module.time, "monotonic", lambda: clock[0])
    load()
    first = query_vocabulary()
    GlossaryTerm(term="LISA", means="Lifetime ISA").save()

    clock[0] += 1.5
    with django_assert_num_queries(0):
        assert query_vocabulary() is first

    clock[0] += 1.0
    assert GlossaryEntry("LISA", "Lifetime ISA") in query_vocabulary().glossary


@pytest.mark.django_db
def test_a_bulk_rename_is_noticed_though_no_model_is_saved():
    """Triggers log the change, so an update that bypasses the models counts too."""
    load()
    assert "junior isa annual limit" in query_vocabulary().topic_names

    Concept.objects.filter(taxonomy_id="isa.junior.annual_limit").update(
        name="Junior ISA subscription limit"
    )

    names = query_vocabulary().topic_names
    assert "junior isa subscription limit" in names
    assert "junior isa annual limit" not in names


@pytest.mark.django_db
def test_a_transaction_logs_one_row_counting_its_changes_and_a_concepts_other_fields_none():
    load()
    rows, changes = _change_log()
    concept = Concept.objects.get(taxonomy_id="isa.allowance")

    Concept.objects.filter(pk=concept.pk).update(description="Changed wording, same name.")
    assert _change_log() == (rows, changes)  # nothing the analysis reads

    GlossaryTerm(term="LISA", means="Lifetime ISA").save()
    GlossaryTerm(term="S&S", means="stocks and shares").save()
    Concept.objects.filter(pk=concept.pk).update(name="Adult ISA allowance")
    assert _change_log() == (rows, changes + 3)  # the test's one transaction, its row


def _change_log() -> tuple[int, int]:
    from django.db.models import Sum

    return VocabularyChange.objects.count(), VocabularyChange.objects.aggregate(n=Sum("changes"))[
        "n"
    ]


@pytest.mark.django_db
def test_the_vocabulary_notices_a_glossary_term_saved():
    load()
    before = query_vocabulary()
    assert not any(entry.term == "LISA" for entry in before.glossary)

    GlossaryTerm(term="LISA", means="Lifetime ISA").save()

    after = query_vocabulary()
    assert GlossaryEntry("LISA", "Lifetime ISA") in after.glossary
    assert "lifetime isa" in after.topic_names


@pytest.mark.django_db
def test_the_vocabulary_notices_a_glossary_term_edited_or_deleted():
    load()
    query_vocabulary()
    term = GlossaryTerm.objects.get(term="JISA")
    term.means = "Junior Individual Savings Account"
    term.save()

    assert {e.means for e in query_vocabulary().glossary if e.term == "JISA"} == {
        "Junior Individual Savings Account"
    }

    GlossaryTerm.objects.get(term="ISA").delete()

    assert not any(entry.term == "ISA" for entry in query_vocabulary().glossary)


@pytest.mark.django_db
def test_the_vocabulary_notices_a_life_event_edited():
    load()
    query_vocabulary()
    event = LifeEvent.objects.get(slug="saving_up")
    event.searches = [*event.searches, "dividend allowance"]
    event.save()

    (info,) = query_vocabulary().life_events
    assert info.searches[-1] == "dividend allowance"


@pytest.mark.django_db
def test_the_vocabulary_notices_a_concept_retired_and_a_category_renamed():
    load()
    assert "junior isa annual limit" in query_vocabulary().topic_names
    concept = Concept.objects.get(taxonomy_id="isa.junior.annual_limit")
    concept.status = Concept.Status.RETIRED
    concept.save()

    assert "junior isa annual limit" not in query_vocabulary().topic_names

    category = Category.objects.get(slug="isa")
    category.name = "Individual Savings Accounts"
    category.save()

    assert ("isa", "Individual Savings Accounts") in {
        (c.slug, c.name) for c in query_vocabulary().categories
    }


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (["Childcare Grant for students"], ("childcare grant",)),
        (["Carer's Allowance (eligibility and rate)"], ("carer's allowance",)),
        (["Marriage Allowance, how to apply"], ("marriage allowance",)),
        (["Pension Credit – how savings count"], ("pension credit",)),
        (["Allowance", "Pension", "Jobseeker's Allowance"], ("jobseeker's allowance",)),
        (["Child Benefit", "Child Benefit", "child benefit"], ("child benefit",)),
        (
            ["State Pension age", "Winter Fuel Payment", "Junior ISA"],
            ("winter fuel payment", "state pension age", "junior isa"),
        ),
    ],
)
def test_topic_names_drop_qualifiers_and_single_words_longest_first(names, expected):
    assert topic_names(names) == expected


def test_the_topic_names_index_finds_what_checking_every_name_finds():
    """The index of names by their first words is only a shortcut: for texts built from the real
    taxonomy's names (in sentences, plural, possessive, hyphenated, cased), the names found
    through it are the names found by checking every one."""
    from knowledge.query.vocabulary import taxonomy_file_vocabulary
    from knowledge.text.glossary import phrase_pattern

    vocabulary = taxonomy_file_vocabulary()
    names = vocabulary.topic_names
    texts = [f"How much {names[i]} can I get?" for i in range(0, len(names), 7)] + [
        "Can I get the new state pension and pension credit?",
        "what's the high income child benefit charge's threshold",
        "is tax-free childcare the same as free childcare? (30 hours)",
        "Jobseeker's Allowance or jobseekers allowance for students",
        "HOUSING BENEFITS for people over state pension age",
        "junior isas, lifetime isas and personal allowances",
        "",
    ]
    for text in texts:
        lowered = text.lower()
        every = [n for n in names if phrase_pattern(n, True).search(lowered)]
        indexed = [
            n for n in vocabulary.topic_names_in(lowered) if phrase_pattern(n, True).search(lowered)
        ]
        assert sorted(indexed) == sorted(every), text
    # and it is a shortcut: a question is checked against a few names, not all of them
    assert len(vocabulary.topic_names_in("how much can i save each year?")) < len(names) / 20


def test_the_names_a_question_holds_are_found_among_thousands_sharing_its_words():
    """Seven thousand names made of the question's own words: exactly those standing in
    it are found (the index narrows by two adjacent words; the phrase check decides)."""
    import itertools

    from knowledge.domain.questions import QueryVocabulary

    words = [
        "income",
        "tax",
        "child",
        "benefit",
        "state",
        "pension",
        "allowance",
        "credit",
        "council",
        "housing",
        "student",
        "loan",
        "capital",
        "gains",
        "marriage",
        "carer",
        "personal",
        "savings",
        "national",
        "insurance",
    ]
    names = [" ".join(p) for n in (2, 3) for p in itertools.permutations(words, n)]
    vocabulary = QueryVocabulary(topic_names=topic_names(names))
    lowered = "can i claim child benefit and pay less income tax on savings?"

    found = [
        name
        for name in vocabulary.topic_names_in(lowered)
        if phrase_pattern(name, True).search(lowered)
    ]

    assert len(vocabulary.topic_names) > 7000
    assert found == ["child benefit", "income tax"]
