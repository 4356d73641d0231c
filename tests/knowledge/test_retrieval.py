"""The search service on hand-made rows: what it shows of each unit."""

import threading

import numpy as np
import pytest
from django.db import OperationalError, connection, transaction

from knowledge.models import AtomicUnit
from knowledge.retrieval import SearchParams, concept_search, sql
from knowledge.retrieval.hits import unit_part_url
from tests.factories import ConceptFactory, SnapshotFactory, UnitFactory, axis_vector

PAGE = "https://www.gov.uk/guide"
TEXT = "Rates. The basic rate is 20%. The higher rate is 40%. Outside every part."


def test_each_unit_links_to_the_innermost_part_holding_its_quote(db):
    """Found in SQL by the search, and in Python for a unit in hand: the same address."""
    # Parts nest: "rates" holds "basic"; the last sentence lies in no part at all.
    basic, higher, outside = (TEXT.index(words) for words in ("The basic", "The higher", "Outside"))
    sections = [
        {
            "start": 0,
            "end": outside - 1,
            "level": 2,
            "url": f"{PAGE}/rates",
            "heading_path": ["Rates"],
        },
        {
            "start": basic,
            "end": higher - 1,
            "level": 3,
            "url": f"{PAGE}/rates#basic",
            "heading_path": ["Rates", "Basic"],
        },
        {
            "start": higher,
            "end": outside - 1,
            "level": 3,
            "url": "",
            "heading_path": ["Rates", "Higher"],
        },
    ]
    snapshot = SnapshotFactory(text=TEXT, sections=sections)
    snapshot.source.url = PAGE
    snapshot.source.save()
    concept = ConceptFactory(embedding=axis_vector(0))
    quotes = {
        "Rates.": f"{PAGE}/rates",
        "The basic rate is 20%.": f"{PAGE}/rates#basic",
        "The higher rate is 40%.": PAGE,  # its innermost part has no URL: the page's
        "Outside every part.": PAGE,
    }
    for n, quote in enumerate(quotes):
        UnitFactory(
            concept=concept,
            snapshot=snapshot,
            evidence_quote=quote,
            embedding=axis_vector(0, 0.1 * n),
        )

    result = concept_search(
        params=SearchParams(query="What are the tax rates?", k=1, min_results=1),
        query_vector=np.array(axis_vector(0)),
    )

    shown = {hit.unit.text: hit.part_url for hit in result.concepts[0].units}
    assert shown == quotes
    units = AtomicUnit.objects.select_related("snapshot", "source").filter(snapshot=snapshot)
    assert {unit.text: unit_part_url(unit) for unit in units} == quotes  # the same in Python


def _two_concepts() -> np.ndarray:
    for wobble in (0.1, 0.6):
        concept = ConceptFactory(embedding=axis_vector(1, wobble))
        UnitFactory(concept=concept, embedding=axis_vector(1, wobble + 0.1))
    return np.array(axis_vector(1, 0.2))


@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_the_concepts_are_found_in_a_session_of_their_own(monkeypatch):
    """Committed rows: the concept query runs on the side thread, beside the units' query,
    and the answer is the one the in-transaction path gives."""
    query = _two_concepts()
    threads = []
    nearest = sql.nearest_concepts

    def spy(*args, **kwargs):
        threads.append(threading.current_thread().name)
        return nearest(*args, **kwargs)

    monkeypatch.setattr(sql, "nearest_concepts", spy)
    params = SearchParams(query="Which rate?", k=2, min_results=1)
    alongside = concept_search(params=params, query_vector=query)
    with transaction.atomic():
        inside = concept_search(params=params, query_vector=query)

    assert (
        threads[0].startswith("navigator-search-side")
        and threads[1] == threading.current_thread().name
    )
    shown = [
        [(hit.concept.pk, hit.score) for hit in result.concepts] for result in (alongside, inside)
    ]
    assert shown[0] == shown[1] and len(shown[0]) == 2


@pytest.mark.django_db(transaction=True)
def test_a_failed_side_session_is_replaced_by_the_next_search():
    query = _two_concepts()
    params = SearchParams(query="Which rate?", k=2, min_results=1)
    concept_search(params=params, query_vector=query)

    def kill_side_session():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(pg_backend_pid())")

    with pytest.raises(OperationalError):
        sql.alongside(kill_side_session)()  # outside a transaction: in the side session
    assert len(concept_search(params=params, query_vector=query).concepts) == 2


def _plan_of_the_unit_query(vector: np.ndarray) -> str:
    """EXPLAIN of the SQL nearest_units sends, in the transaction the service tunes."""
    sent = []

    def catch(execute, sql_text, params, many, context):
        sent.append((sql_text, params))
        return execute(sql_text, params, many, context)

    with sql.index_scans_tuned():
        with connection.execute_wrapper(catch):
            sql.nearest_units(vector, floor=0.3, limit=100, category_ids=None, day=None)
        with connection.cursor() as cursor:
            cursor.execute("EXPLAIN " + sent[0][0], sent[0][1])
            return "\n".join(row[0] for row in cursor.fetchall())


def test_the_unit_query_uses_the_hnsw_index_on_a_small_table_too(db):
    """A handful of units: the planner alone would read the table and sort it."""
    concept = ConceptFactory(embedding=axis_vector(2))
    for n in range(5):
        UnitFactory(concept=concept, embedding=axis_vector(2, 0.1 * n))

    plan = _plan_of_the_unit_query(np.array(axis_vector(2)))

    assert "unit_embedding_hnsw" in plan, plan


def test_full_text_matches_run_outside_the_tuned_transaction(db, monkeypatch):
    """Sequential scans are off only for the nearest-neighbour queries."""
    settings_seen = []
    matches = sql.text_matches

    def spy(*args, **kwargs):
        with connection.cursor() as cursor:
            cursor.execute("SHOW enable_seqscan")
            settings_seen.append(cursor.fetchone()[0])
        return matches(*args, **kwargs)

    from knowledge.retrieval import search as search_module

    monkeypatch.setattr(search_module, "text_matches", spy)
    query = _two_concepts()
    concept_search(params=SearchParams(query="Which rate?", k=2, hybrid=True), query_vector=query)

    assert settings_seen == ["on"]


def test_inside_a_callers_transaction_the_tuning_ends_with_the_block(db):
    def shown() -> tuple[str, str, str]:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT current_setting('enable_seqscan'), current_setting('enable_sort'),"
                " current_setting('hnsw.iterative_scan')"
            )
            return cursor.fetchone()

    before = shown()
    with sql.index_scans_tuned():
        assert shown() == ("off", "off", "relaxed_order")
    assert shown() == before
    with pytest.raises(RuntimeError), sql.index_scans_tuned():
        raise RuntimeError("a query failed")
    assert shown() == before


@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_the_tuned_query_is_one_message_and_leaves_no_setting():
    query = _two_concepts()
    sent = []

    def catch(execute, sql_text, params, many, context):
        sent.append(sql_text)
        return execute(sql_text, params, many, context)

    with connection.execute_wrapper(catch):
        rows = sql.nearest_units(
            query, floor=0.3, limit=100, category_ids=None, day=None, ef_search=40
        )
    with transaction.atomic():
        sql.tune_index_scans(40)
        expected = sql.nearest_units(query, floor=0.3, limit=100, category_ids=None, day=None)

    assert len(sent) == 1 and "set_config('enable_seqscan', 'off', true)" in sent[0]
    assert rows == expected and len(rows) == 2
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('enable_seqscan'), current_setting('enable_sort')")
        assert cursor.fetchone() == ("on", "on")


def test_ef_search_holds_up_to_a_steady_size_then_grows_with_its_square_root():
    steady = sql.EF_SEARCH_STEADY_ROWS
    assert sql.ef_search_for(0, 400) == 400
    assert sql.ef_search_for(steady, 400) == 400
    assert sql.ef_search_for(4 * steady, 100) == 200
    assert sql.ef_search_for(100 * steady, 400) == sql.EF_SEARCH_MAX  # pgvector's limit


@pytest.fixture
def table_sizes_read_afresh():
    sql.table_sizes_forget()
    yield
    sql.table_sizes_forget()  # no other test inherits the size this one faked


def test_the_unit_query_s_ef_search_follows_the_table_size_read_once_a_while(
    db, monkeypatch, django_assert_num_queries, settings, table_sizes_read_afresh
):
    UnitFactory()
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE knowledge_atomicunit")
    with django_assert_num_queries(1):  # the size, read once
        assert sql.unit_ef_search() == settings.RETRIEVAL_EF_SEARCH
        assert sql.unit_ef_search() == settings.RETRIEVAL_EF_SEARCH
    assert sql._table_rows("knowledge_atomicunit") == 1

    monkeypatch.setattr(sql, "TABLE_SIZE_CHECK_SECONDS", 0.0)
    with connection.cursor() as cursor:  # as ANALYZE would find a table grown 800,000 rows
        cursor.execute(
            "UPDATE pg_class SET reltuples = 800000 WHERE oid = 'knowledge_atomicunit'::regclass"
        )
    sent = []

    def catch(execute, sql_text, params, many, context):
        sent.append((sql_text, params))
        return execute(sql_text, params, many, context)

    with connection.execute_wrapper(catch):
        concept_search(params=SearchParams(query="rates", k=5), query_vector=_two_concepts())
    tuned = [params for text, params in sent if "set_config('hnsw.ef_search'" in text]
    grown = str(sql.ef_search_for(800_000, settings.RETRIEVAL_EF_SEARCH))
    assert grown == "1000" and [grown, "relaxed_order", "off", "off"] in tuned


def test_for_a_person_a_unit_naming_them_is_read_from_far_down_its_concept(db):
    """Twenty units nearer the question say nothing of Scotland; the twenty-first is for people
    living there: a Scottish user sees it first, labelled; a search without the profile (or
    for someone in Wales) reads only the nearest."""
    concept = ConceptFactory(embedding=axis_vector(2))
    for n in range(20):
        UnitFactory(concept=concept, text=f"Rule {n}.", embedding=axis_vector(2, 0.01 * n))
    scottish = UnitFactory(
        concept=concept,
        text="If you live in Scotland: You can apply for a Funeral Support Payment.",
        applicability={"nations": ["scotland"]},
        embedding=axis_vector(2, 3.0),
    )
    query = np.array(axis_vector(2))

    def shown(profile):
        params = SearchParams(query="Funeral costs?", k=1, min_results=1, profile=profile)
        return concept_search(params=params, query_vector=query).concepts[0].units

    for_scot = shown({"nation": "scotland"})
    assert for_scot[0].unit.pk == scottish.pk and for_scot[0].fit.applies is True
    assert for_scot[0].named_not_near  # it does not make the concept answer the question
    assert scottish.pk not in {u.unit.pk for u in shown(None)}
    assert scottish.pk not in {u.unit.pk for u in shown({"nation": "wales"})}
