from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from curation.roles import DOMAIN_EXPERT, EDITOR


@pytest.fixture(scope="session", autouse=True)
def _search_side_session_closed(django_db_setup, django_db_blocker):
    """Searches outside a transaction (live server, transactional tests) leave the search's
    side-thread session open on the test database, which must be closed before it is dropped."""
    yield
    from knowledge.retrieval import side_sessions_close

    with django_db_blocker.unblock():
        side_sessions_close()


@pytest.fixture(autouse=True)
def _query_vectors_forgotten():
    """Each test embeds its questions afresh: a vector held from another test's stand-in
    embedder must not answer for this one's."""
    from knowledge import embeddings

    embeddings.query_vectors_forget()


@pytest.fixture(autouse=True)
def _query_vocabulary_read_each_time(settings):
    """Tests edit the taxonomy and search at once: the vocabulary (and the tax band table) is
    read on every call (tests/knowledge/test_query_vocabulary.py holds the interval production
    uses)."""
    from knowledge.band_table import band_limits_forget
    from knowledge.query.vocabulary import query_vocabulary_forget

    settings.QUERY_VOCABULARY_CHECK_SECONDS = 0
    query_vocabulary_forget()
    band_limits_forget()


@pytest.fixture
def superuser(db):
    return get_user_model().objects.create_superuser("root", "root@example.test", "pw-root-123")


def _member_of(role: str, username: str):
    user = get_user_model().objects.create_user(username, password="pw-123456", is_staff=True)
    user.groups.add(Group.objects.get(name=role))
    return user


@pytest.fixture
def expert(db):
    return _member_of(DOMAIN_EXPERT, "expert1")


@pytest.fixture
def editor(db):
    return _member_of(EDITOR, "editor1")


CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "govuk"


@pytest.fixture(scope="session")
def corpus_pages() -> Path:
    """The shared real gov.uk corpus (kept outside the repository, beside the clone)."""
    pages = CORPUS / "pages"
    if not pages.is_dir():
        pytest.skip(f"real gov.uk corpus not found beside the project ({pages})")
    return pages
