"""The editors' glossary and life-event screen and its services: who may use it, CSRF, the
htmx panel, each change audited, bad input refused by name with nothing changed, and the
point of it all: an edit made on the screen changes how the next question is searched."""

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.test import Client
from django.urls import reverse

from curation.models import AuditEvent
from curation.services import vocabulary as services
from curation.services.taxonomy import TaxonomyChangeRefused
from knowledge.models import Concept, GlossaryTerm, LifeEvent
from knowledge.query.analysis import query_analyse
from knowledge.query.search import question_searches
from tests.factories import CategoryFactory, ConceptFactory

pytestmark = pytest.mark.django_db

GLOSSARY_URL = "/curation/taxonomy/glossary/"
HTMX = {"HTTP_HX_REQUEST": "true"}
LLAMA_QUESTION = "What help can I get when adopting a llama?"
UNLINKED = {"match_case": False, "concept_id": None, "category_id": None}
LLAMA_SEARCHES = ["llama adoption grant", "llama feed tax relief", "llama care allowance"]


@pytest.fixture(autouse=True)
def _heuristic_analysis(settings):
    settings.QUERY_ANALYSIS_PROVIDER = "heuristic"  # no model is asked in these tests


@pytest.fixture
def vocab():
    """An ISA category and concept, a retired concept, one glossary term and one life event."""
    isa = CategoryFactory(slug="isa", name="ISAs")
    junior = ConceptFactory(category=isa, taxonomy_id="isa.junior.allowance", name="Junior ISA")
    retired = ConceptFactory(
        category=isa, taxonomy_id="isa.old_topic", status=Concept.Status.RETIRED
    )
    term = GlossaryTerm.objects.create(term="ISA", means="Individual Savings Account", category=isa)
    event = LifeEvent.objects.create(
        slug="adopting_a_llama",
        name="Adopting a llama",
        triggers=["adopting a llama", "new llama"],
        searches=LLAMA_SEARCHES,
    )
    return {"isa": isa, "junior": junior, "retired": retired, "term": term, "event": event}


@pytest.fixture
def editor_client(client, editor):
    client.force_login(editor)
    return client


def add_url(kind: str) -> str:
    return reverse("curation:taxonomy-glossary-add", args=[kind])


def change_url(kind: str, record, action: str) -> str:
    return reverse("curation:taxonomy-glossary-change", args=[kind, record.pk, action])


def page_of(response) -> str:
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def last_event() -> AuditEvent:
    return AuditEvent.objects.order_by("-pk").first()


def search_texts(question: str) -> list[str]:
    analysis = query_analyse(query=question)
    return [search.text for search in question_searches(question, analysis)]


def vocabulary_state() -> tuple:
    terms = list(GlossaryTerm.objects.order_by("pk").values_list())
    events = list(LifeEvent.objects.order_by("pk").values_list())
    return terms, events, AuditEvent.objects.count()


NEW_TERM = {"term": "XQJ", "means": "Junior ISA", "concept": "isa.junior.allowance"}
NEW_EVENT = {
    "slug": "buying_a_boat",
    "name": "Buying a boat",
    "triggers": "buying a boat\n",
    "searches": "boat stamp duty\nboat insurance tax\nboat licence costs",
}


def _posts(vocab) -> list[tuple[str, dict]]:
    return [
        (add_url("terms"), NEW_TERM),
        (change_url("terms", vocab["term"], "edit"), {"term": "ISA", "means": "Something else"}),
        (change_url("terms", vocab["term"], "delete"), {}),
        (add_url("life-events"), NEW_EVENT),
        (change_url("life-events", vocab["event"], "edit"), {"name": "x", "triggers": "y"}),
        (change_url("life-events", vocab["event"], "delete"), {}),
    ]


# --- who may use the screen ----------------------------------------------------------------------


def test_anonymous_people_are_sent_to_the_login_and_change_nothing(client, vocab):
    before = vocabulary_state()
    response = client.get(GLOSSARY_URL)
    assert response.status_code == 302
    assert response["Location"].startswith(f"/admin/login/?next={GLOSSARY_URL}")
    for url, data in _posts(vocab):
        assert client.post(url, data).status_code == 302, url
        assert client.post(url, data, **HTMX)["HX-Refresh"] == "true"
    assert vocabulary_state() == before


def test_domain_experts_and_other_staff_are_refused(client, expert, vocab):
    staff = get_user_model().objects.create_user("staff1", password="pw-123456", is_staff=True)
    before = vocabulary_state()
    for user in (expert, staff):
        client.force_login(user)
        assert client.get(GLOSSARY_URL).status_code == 403
        for url, data in _posts(vocab):
            assert client.post(url, data, **HTMX).status_code == 403, (user, url)
    assert vocabulary_state() == before


def test_the_services_refuse_anyone_but_an_editor(expert, vocab):
    calls = [
        lambda user: services.glossary_term_create(term="A", means="B", user=user),
        lambda user: services.glossary_term_update(
            term_id=vocab["term"].pk, term="ISA", means="C", user=user, **UNLINKED
        ),
        lambda user: services.glossary_term_delete(term_id=vocab["term"].pk, user=user),
        lambda user: services.life_event_create(
            slug="x", name="X", triggers=["x"], searches=LLAMA_SEARCHES, user=user
        ),
        lambda user: services.life_event_update(
            life_event_id=vocab["event"].pk,
            name="Y",
            triggers=["y"],
            searches=LLAMA_SEARCHES,
            user=user,
        ),
        lambda user: services.life_event_delete(life_event_id=vocab["event"].pk, user=user),
    ]
    before = vocabulary_state()
    for call in calls:
        for user in (expert, None):
            with pytest.raises(PermissionDenied):
                call(user)
    assert vocabulary_state() == before


def test_the_editor_reaches_the_screen_from_the_taxonomy_tabs(editor_client, vocab):
    assert f'href="{GLOSSARY_URL}"' in page_of(editor_client.get("/curation/taxonomy/"))
    page = page_of(editor_client.get(GLOSSARY_URL))
    assert f'<a href="{GLOSSARY_URL}" aria-current="page">' in page


def test_changes_need_a_csrf_token(editor, vocab):
    client = Client(enforce_csrf_checks=True)
    client.force_login(editor)
    assert client.post(add_url("terms"), NEW_TERM, **HTMX).status_code == 403
    assert not GlossaryTerm.objects.filter(term="XQJ").exists()
    page = page_of(client.get(GLOSSARY_URL))
    assert "X-CSRFToken" in page and "csrfmiddlewaretoken" in page
    token = client.cookies["csrftoken"].value
    accepted = client.post(add_url("terms"), NEW_TERM, HTTP_X_CSRFTOKEN=token, **HTMX)
    assert accepted.status_code == 200
    assert GlossaryTerm.objects.filter(term="XQJ").exists()


def test_changes_are_posts_only_and_unknown_things_are_404(editor_client, vocab):
    for url, _ in _posts(vocab):
        assert editor_client.get(url).status_code == 405, url
    assert editor_client.post(add_url("widgets"), NEW_TERM).status_code == 404
    assert editor_client.post(f"{GLOSSARY_URL}terms/{vocab['term'].pk}/add/").status_code == 404
    assert editor_client.post(f"{GLOSSARY_URL}terms/999999/edit/", NEW_TERM).status_code == 404
    assert editor_client.post(f"{GLOSSARY_URL}life-events/999999/delete/").status_code == 404


# --- the screen --------------------------------------------------------------------------------


def test_the_screen_lists_terms_and_life_events(editor_client, vocab):
    GlossaryTerm.objects.create(
        term="PA", means="Personal Allowance", match_case=True, concept=vocab["junior"]
    )
    page = page_of(editor_client.get(GLOSSARY_URL))
    row = page[page.index('id="term-') :]
    assert "<code>ISA</code>" in page and "Individual Savings Account" in page
    assert "<code>PA</code>" in row and "yes" in row and "isa.junior.allowance" in row
    assert "ISAs" in page  # the ISA term's category
    assert "Adopting a llama" in page and "<code>adopting a llama</code>" in page
    assert all(f"<li>{search}</li>" in page for search in LLAMA_SEARCHES)
    pa = GlossaryTerm.objects.get(term="PA")
    llama = LifeEvent.objects.get(name="Adopting a llama")
    for kind, record in (("terms", pa), ("life-events", llama)):
        assert all(
            f'hx-post="{change_url(kind, record, verb)}"' in page for verb in ("edit", "delete")
        )
    assert 'hx-confirm="Delete the glossary term PA → Personal Allowance?"' in page
    assert 'hx-confirm="Delete the life event Adopting a llama?"' in page
    fragment = page_of(editor_client.get(GLOSSARY_URL, **HTMX))
    assert fragment.lstrip().startswith('<div id="glossary-panel"')


def test_adding_a_term_is_audited_and_shown(editor_client, editor, vocab):
    page = page_of(
        editor_client.post(add_url("terms"), NEW_TERM | {"note": "seen in logs"}, **HTMX)
    )
    assert page.lstrip().startswith('<div id="glossary-panel"')
    term = GlossaryTerm.objects.get(term="XQJ")
    assert (term.means, term.concept_id, term.match_case) == (
        "Junior ISA",
        vocab["junior"].pk,
        False,
    )
    event = last_event()
    assert (event.action, event.actor, event.note) == (
        "glossary_term.create",
        editor,
        "seen in logs",
    )
    assert (event.target_type, event.target_id) == ("glossaryterm", term.pk)
    assert event.before == {"glossary_term": {str(term.pk): None}}
    assert event.after["glossary_term"][str(term.pk)] == {
        "term": "XQJ",
        "means": "Junior ISA",
        "match_case": False,
        "concept": vocab["junior"].pk,
        "category": None,
    }
    assert f"Added glossary term XQJ → Junior ISA (audit entry #{event.pk})" in page
    assert f'id="vocabulary-change-{event.pk}"' in page


def test_editing_and_deleting_a_term_are_audited(editor_client, vocab):
    term = vocab["term"]
    data = {
        "term": "ISA",
        "means": "Individual Savings Account",
        "match_case": "on",
        "category": "",
        "concept": "isa.junior.allowance",
    }
    page = page_of(editor_client.post(change_url("terms", term, "edit"), data, **HTMX))
    term.refresh_from_db()
    assert (term.match_case, term.category_id, term.concept_id) == (True, None, vocab["junior"].pk)
    edit = last_event()
    assert edit.action == "glossary_term.edit"
    assert edit.before["glossary_term"][str(term.pk)]["category"] == vocab["isa"].pk
    assert edit.after["glossary_term"][str(term.pk)]["match_case"] is True
    assert "Edited glossary term ISA → Individual Savings Account" in page

    page = page_of(editor_client.post(change_url("terms", term, "delete"), **HTMX))
    assert not GlossaryTerm.objects.filter(pk=term.pk).exists()
    deletion = last_event()
    assert deletion.action == "glossary_term.delete" and deletion.target_id == term.pk
    assert deletion.after == {"glossary_term": {str(term.pk): None}}
    assert deletion.before["glossary_term"][str(term.pk)]["means"] == "Individual Savings Account"
    assert "Deleted glossary term ISA" in page and "No glossary terms yet." in page


def test_life_events_are_added_edited_and_deleted_with_audit(editor_client, editor, vocab):
    page_of(editor_client.post(add_url("life-events"), NEW_EVENT, **HTMX))
    boat = LifeEvent.objects.get(slug="buying_a_boat")
    assert boat.triggers == ["buying a boat"]
    assert boat.searches == ["boat stamp duty", "boat insurance tax", "boat licence costs"]
    assert (last_event().action, last_event().actor) == ("life_event.create", editor)

    data = {
        "name": "Buying a boat or barge",
        "triggers": "buying a boat\n\n  a barge  \n",
        "searches": "boat stamp duty\nbarge licence\nmooring fees\nboat insurance tax",
    }
    page = page_of(editor_client.post(change_url("life-events", boat, "edit"), data, **HTMX))
    boat.refresh_from_db()
    assert boat.triggers == ["buying a boat", "a barge"] and len(boat.searches) == 4
    edit = last_event()
    assert edit.action == "life_event.edit" and "Edited life event buying_a_boat" in page
    assert edit.before["life_event"][str(boat.pk)]["triggers"] == ["buying a boat"]
    assert edit.after["life_event"][str(boat.pk)]["name"] == "Buying a boat or barge"

    page_of(editor_client.post(change_url("life-events", boat, "delete"), **HTMX))
    assert not LifeEvent.objects.filter(slug="buying_a_boat").exists()
    assert last_event().before["life_event"][str(boat.pk)]["slug"] == "buying_a_boat"


def test_a_plain_form_post_redirects_back_with_a_message(editor_client, vocab):
    response = editor_client.post(add_url("terms"), NEW_TERM, follow=True)
    assert response.redirect_chain == [(GLOSSARY_URL, 302)]
    assert "Added glossary term XQJ → Junior ISA" in page_of(response)
    refused = editor_client.post(add_url("terms"), NEW_TERM, follow=True)
    assert "The term was not added: means: the glossary has XQJ → Junior ISA already" in page_of(
        refused
    )


# --- bad input ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"term": "  ", "means": "Junior ISA"}, "The term was not added: term: must not be blank"),
        ({"term": "XQJ", "means": ""}, "means: must not be blank"),
        (
            {"term": "isa", "means": "individual savings account"},
            "means: the glossary has ISA → Individual Savings Account already",
        ),
        (
            {"term": "XQJ", "means": "Junior ISA", "concept": "isa.nothing"},
            "concept: no concept or old id",
        ),
        (
            {"term": "XQJ", "means": "Junior ISA", "concept": "isa.old_topic"},
            "concept: isa.old_topic is retired",
        ),
        ({"term": "XQJ", "means": "Junior ISA", "category": "nowhere"}, "category: no category"),
        ({"term": "X" * 65, "means": "Junior ISA"}, "term: at most 64 characters"),
        (
            {"term": "XQJ", "means": "Junior ISA", "note": "n" * 2001},
            "note: at most 2000 characters",
        ),
    ],
)
def test_a_bad_term_says_which_field_and_changes_nothing(editor_client, vocab, data, message):
    before = vocabulary_state()
    page = page_of(editor_client.post(add_url("terms"), data, **HTMX))
    assert message in page
    assert vocabulary_state() == before
    form = page[page.index('id="term-add-form"') :]
    assert f'value="{data["means"]}"' in form  # what was typed is kept


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"searches": "one\ntwo"}, "searches: 3 to 5 searches, one a line (2 given)"),
        ({"searches": "a\nb\nc\nd\ne\nf"}, "searches: 3 to 5 searches, one a line (6 given)"),
        ({"searches": "a\nb\nA"}, "searches: “A” is given twice"),
        ({"triggers": " \n \n"}, "triggers: 1 to 50 phrases, one a line"),
        ({"name": ""}, "name: must not be blank"),
        ({"slug": "Buying A Boat"}, "slug: lower-case letters, digits and _"),
        ({"slug": "adopting_a_llama"}, "slug: another life event is adopting_a_llama"),
    ],
)
def test_a_bad_life_event_says_which_field_and_changes_nothing(editor_client, vocab, data, message):
    before = vocabulary_state()
    page = page_of(editor_client.post(add_url("life-events"), NEW_EVENT | data, **HTMX))
    assert f"The life event was not added: {message}" in page
    assert vocabulary_state() == before


def test_a_refused_edit_keeps_its_form_open_with_what_was_typed(editor_client, vocab):
    event = vocab["event"]
    data = {"name": "Adopting an alpaca", "triggers": "alpaca", "searches": "alpaca grant"}
    page = page_of(editor_client.post(change_url("life-events", event, "edit"), data, **HTMX))
    assert "The life event was not changed: searches: 3 to 5 searches" in page
    row = page[page.index(f'id="life-event-{event.pk}"') :]
    assert "<details open>" in row[: row.index("</details>")]
    assert 'value="Adopting an alpaca"' in row
    event.refresh_from_db()
    assert event.name == "Adopting a llama"


# --- the services directly ---------------------------------------------------------------------


def test_an_ambiguous_term_holds_one_reading_per_meaning(editor, vocab):
    services.glossary_term_create(
        term="MA", means="Maternity Allowance", match_case=True, user=editor
    )
    services.glossary_term_create(
        term="MA", means="Marriage Allowance", match_case=True, user=editor
    )
    assert GlossaryTerm.objects.filter(term="MA").count() == 2
    with pytest.raises(
        TaxonomyChangeRefused, match="means: the glossary has MA → Marriage Allowance already"
    ):
        services.glossary_term_create(term="ma", means="MARRIAGE ALLOWANCE", user=editor)


def test_an_edit_may_keep_its_own_reading_but_not_take_another(editor, vocab):
    GlossaryTerm.objects.create(term="LISA", means="Lifetime ISA")
    term_id, isa = vocab["term"].pk, vocab["isa"].pk
    as_held = {"match_case": False, "concept_id": None, "category_id": isa}
    with pytest.raises(TaxonomyChangeRefused, match="means: the glossary has LISA → Lifetime ISA"):
        services.glossary_term_update(
            term_id=term_id, term="lisa", means="lifetime isa", user=editor, **as_held
        )
    with pytest.raises(TaxonomyChangeRefused, match="term: nothing changed"):
        services.glossary_term_update(
            term_id=term_id, term="ISA", means="Individual Savings Account", user=editor, **as_held
        )
    event = services.glossary_term_update(
        term_id=term_id, term="isa", means="individual savings account", user=editor, **as_held
    )
    assert event.before["glossary_term"][str(term_id)]["term"] == "ISA"
    assert event.after["glossary_term"][str(term_id)]["term"] == "isa"
    assert not AuditEvent.objects.exclude(pk=event.pk).exists()


def test_the_services_name_unknown_links_and_blank_phrases(editor, vocab):
    with pytest.raises(TaxonomyChangeRefused, match="concept: no concept 999999"):
        services.glossary_term_create(term="A", means="B", concept_id=999999, user=editor)
    with pytest.raises(TaxonomyChangeRefused, match="category: no category 999999"):
        services.glossary_term_create(term="A", means="B", category_id=999999, user=editor)
    with pytest.raises(TaxonomyChangeRefused, match="triggers: trigger 2 is blank"):
        services.life_event_create(
            slug="x", name="X", triggers=["x", "  "], searches=LLAMA_SEARCHES, user=editor
        )
    with pytest.raises(TaxonomyChangeRefused, match="searches: search 3 is blank"):
        services.life_event_create(
            slug="x", name="X", triggers=["x"], searches=["a", "b", ""], user=editor
        )
    with pytest.raises(GlossaryTerm.DoesNotExist):
        services.glossary_term_delete(term_id=999999, user=editor)
    assert not AuditEvent.objects.exists()


def test_a_life_event_phrase_has_its_blanks_collapsed(editor, vocab):
    services.life_event_update(
        life_event_id=vocab["event"].pk,
        name=" Adopting  a llama ",
        triggers=["adopting   a llama"],
        searches=["a  b", "c", "d"],
        user=editor,
    )
    event = LifeEvent.objects.get(pk=vocab["event"].pk)
    assert (event.name, event.triggers, event.searches) == (
        "Adopting  a llama",
        ["adopting a llama"],
        ["a b", "c", "d"],
    )


# --- an edit on the screen changes the next search --------------------------------------------


def test_a_glossary_edit_on_the_screen_changes_the_next_search(editor_client, vocab):
    question = "Can I open an XQJ?"
    assert not any("Junior ISA" in text for text in search_texts(question))

    page_of(editor_client.post(add_url("terms"), NEW_TERM, **HTMX))
    assert "Can I open an XQJ (Junior ISA)?" in search_texts(question)

    term = GlossaryTerm.objects.get(term="XQJ")
    data = {"term": "XQJ", "means": "Lifetime ISA"}
    page_of(editor_client.post(change_url("terms", term, "edit"), data, **HTMX))
    texts = search_texts(question)
    assert "Can I open an XQJ (Lifetime ISA)?" in texts
    assert not any("Junior ISA" in text for text in texts)

    page_of(editor_client.post(change_url("terms", term, "delete"), **HTMX))
    assert search_texts(question) == [question]


def test_a_life_event_edit_on_the_screen_changes_the_searches_of_a_broad_question(
    editor_client, vocab
):
    analysis = query_analyse(query=LLAMA_QUESTION)
    assert (analysis.strategy, analysis.life_event) == ("broad", "adopting_a_llama")
    assert set(LLAMA_SEARCHES) <= set(search_texts(LLAMA_QUESTION))

    new = ["llama import duty", "llama vet bills relief", "llama grazing rates"]
    data = {"name": "Adopting a llama", "triggers": "adopting a llama", "searches": "\n".join(new)}
    page_of(editor_client.post(change_url("life-events", vocab["event"], "edit"), data, **HTMX))
    texts = search_texts(LLAMA_QUESTION)
    assert set(new) <= set(texts) and not set(LLAMA_SEARCHES) & set(texts)

    page_of(editor_client.post(change_url("life-events", vocab["event"], "delete"), **HTMX))
    assert query_analyse(query=LLAMA_QUESTION).strategy == "specific"
    assert search_texts(LLAMA_QUESTION) == [LLAMA_QUESTION]


def test_a_life_event_added_on_the_screen_expands_its_broad_question(editor_client, vocab):
    question = "What help can I get when buying a boat?"
    assert search_texts(question) == [question]
    page_of(editor_client.post(add_url("life-events"), NEW_EVENT, **HTMX))
    assert "boat stamp duty" in search_texts(question)


def test_a_glossary_change_is_reverted_and_the_next_search_sees_the_revert(editor, vocab):
    from curation.services.taxonomy import taxonomy_change_revert

    created = services.glossary_term_create(term="XQJ", means="Junior ISA", user=editor)
    assert any("Junior ISA" in text for text in search_texts("Can I open an XQJ?"))
    edited = services.glossary_term_update(
        term_id=GlossaryTerm.objects.get(term="XQJ").pk,
        term="XQJ",
        means="Lifetime ISA",
        match_case=False,
        concept_id=None,
        category_id=None,
        user=editor,
    )
    assert any("Lifetime ISA" in text for text in search_texts("Can I open an XQJ?"))

    taxonomy_change_revert(event_id=edited.pk, user=editor)
    texts = search_texts("Can I open an XQJ?")
    assert any("Junior ISA" in text for text in texts)
    assert not any("Lifetime ISA" in text for text in texts)
    taxonomy_change_revert(event_id=created.pk, user=editor)
    assert search_texts("Can I open an XQJ?") == ["Can I open an XQJ?"]
    assert not GlossaryTerm.objects.filter(term="XQJ").exists()


def test_a_life_event_change_is_reverted(editor, vocab):
    from curation.services.taxonomy import taxonomy_change_revert

    event = vocab["event"]
    changed = services.life_event_update(
        life_event_id=event.pk,
        name=event.name,
        triggers=event.triggers,
        searches=["llama feed costs", "llama insurance", "llama vet bills"],
        user=editor,
    )
    taxonomy_change_revert(event_id=changed.pk, user=editor)
    event.refresh_from_db()
    assert event.searches == LLAMA_SEARCHES
