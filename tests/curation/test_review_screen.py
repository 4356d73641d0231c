"""The domain experts' review screens: queue, filters, pair fragment, decisions, bulk approval,
progress and chart, decision log with revert, snapshot view; who may use them; CSRF."""

import datetime as dt

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from curation.models import AuditEvent, SupersedingCandidate
from curation.presenters.chart import decisions_chart
from curation.presenters.worddiff import FIGURE, SAME, WORD, segments_html, word_diff
from curation.roles import DOMAIN_EXPERT
from curation.selectors.review import decisions_per_day
from curation.services.superseding import candidate_approve, candidate_reject
from knowledge.models import AtomicUnit
from navigator.services import api_token_create
from tests.factories import (
    CandidateFactory,
    CategoryFactory,
    ConceptFactory,
    SnapshotFactory,
    SourceFactory,
    UnitFactory,
)

pytestmark = pytest.mark.django_db

REVIEW_URL = "/curation/review/"
DECISIONS_URL = "/curation/review/decisions/"
HTMX = {"HTTP_HX_REQUEST": "true"}
OLD_TEXT = "The standard Personal Allowance is £12,500 a year from 6 April 2019."
NEW_TEXT = "The standard Personal Allowance remains £12,570 a year from 6 April 2021."


def decide_url(candidate) -> str:
    return reverse("curation:review-decide", args=[candidate.pk])


def pair_url(candidate) -> str:
    return reverse("curation:review-pair", args=[candidate.pk])


def personal_allowance_pair(**overrides) -> SupersedingCandidate:
    category = CategoryFactory(slug="income_tax", name="Income Tax")
    concept = ConceptFactory(
        category=category, taxonomy_id="income_tax.personal_allowance", name="Personal Allowance"
    )
    source = SourceFactory(url="https://www.gov.uk/income-tax-rates", base_path="/income-tax-rates")
    older = UnitFactory(
        concept=concept,
        snapshot=SnapshotFactory(source=source, text=f"Income Tax rates and bands. {OLD_TEXT}"),
        evidence_quote=OLD_TEXT,
        unit_type=AtomicUnit.Type.THRESHOLD,
        value_amount=12500,
        value_unit="GBP",
        value_period="year",
        valid_from=dt.date(2019, 4, 6),
    )
    newer = UnitFactory(
        concept=concept,
        snapshot=SnapshotFactory(source=source, text=f"Income Tax rates and bands. {NEW_TEXT}"),
        evidence_quote=NEW_TEXT,
        unit_type=AtomicUnit.Type.THRESHOLD,
        value_amount=12570,
        value_unit="GBP",
        value_period="year",
        valid_from=dt.date(2021, 4, 6),
    )
    values = {"confidence": 0.93, "cosine": 0.912, "text_similarity": 0.874}
    values.update(overrides)
    return CandidateFactory(older=older, newer=newer, **values)


def isa_pair(**overrides) -> SupersedingCandidate:
    category = CategoryFactory(slug="isa", name="ISAs")
    concept = ConceptFactory(category=category, taxonomy_id="isa.allowance", name="ISA allowance")
    source = SourceFactory(url="https://www.gov.uk/individual-savings-accounts")
    older = UnitFactory(
        concept=concept,
        snapshot=SnapshotFactory(source=source, text="You can save up to £15,240 in ISAs."),
        evidence_quote="You can save up to £15,240 in ISAs.",
        valid_from=dt.date(2015, 4, 6),
    )
    newer = UnitFactory(
        concept=concept,
        snapshot=SnapshotFactory(source=source, text="You can save up to £20,000 in ISAs."),
        evidence_quote="You can save up to £20,000 in ISAs.",
        valid_from=dt.date(2017, 4, 6),
    )
    values = {"confidence": 0.55}
    values.update(overrides)
    return CandidateFactory(older=older, newer=newer, **values)


@pytest.fixture
def pa_pair():
    return personal_allowance_pair()


@pytest.fixture
def other_expert(db):
    from django.contrib.auth.models import Group

    user = get_user_model().objects.create_user("alice", password="pw-123456", is_staff=True)
    user.groups.add(Group.objects.get(name=DOMAIN_EXPERT))
    return user


@pytest.fixture
def expert_client(client, expert):
    client.force_login(expert)
    return client


def page_of(response) -> str:
    assert response.status_code == 200, response.content[:500]
    return response.content.decode()


# --- the queue --------------------------------------------------------------------------------


def test_expert_sees_the_pair_side_by_side_with_everything_needed_to_decide(expert_client, pa_pair):
    page = page_of(expert_client.get(REVIEW_URL))
    assert "income_tax.personal_allowance" in page and "Personal Allowance" in page
    assert 'class="unit-side unit-older"' in page and 'class="unit-side unit-newer"' in page
    assert "Threshold" in page
    assert "£12,500 a year" in page and "£12,570 a year" in page  # values
    assert "6 Apr 2019 to open end" in page and "6 Apr 2021 to open end" in page
    assert page.count('class="temporal temporal-current"') == 2
    assert "https://www.gov.uk/income-tax-rates" in page
    for unit in (pa_pair.older, pa_pair.newer):
        assert f"/curation/snapshots/{unit.snapshot_id}/?unit={unit.pk}#evidence" in page
        assert unit.evidence_quote in page
    assert "Same rule at a later time" in page and ">0.93<" in page
    assert "same threshold, new tax year" in page  # the rationale
    assert "Cosine similarity <strong>0.912</strong>" in page
    assert "text similarity <strong>0.874</strong>" in page
    assert "the newer unit&#x27;s validity starts later" in page
    assert "/static/vendor/htmx.min.js" in page and "/static/curation/review.js" in page
    assert "/static/curation/refusals.js" in page  # a refused htmx request is told
    assert "<kbd>a</kbd>" in page and "<kbd>j</kbd>" in page  # shortcuts on screen


def test_heuristic_adjudicator_is_never_presented_as_an_llm(expert_client, pa_pair):
    page = page_of(expert_client.get(REVIEW_URL))
    assert "heuristic (rule-based, no LLM)" in page
    assert "not from a language model" in page
    SupersedingCandidate.objects.filter(pk=pa_pair.pk).update(
        adjudicator="openai", adjudicator_model="gpt-4o-mini"
    )
    page = page_of(expert_client.get(REVIEW_URL))
    assert "LLM (OpenAI-compatible), model gpt-4o-mini" in page
    assert "not from a language model" not in page


def test_word_diff_marks_changed_amounts_apart_from_other_words():
    old, new = word_diff(
        "The allowance is £12,500 a year.", "The allowance remains £12,570 a year."
    )
    assert [(s.text, s.kind) for s in old] == [
        ("The allowance", SAME),
        ("is", WORD),
        ("£12,500", FIGURE),
        ("a year.", SAME),
    ]
    assert ("£12,570", FIGURE) in [(s.text, s.kind) for s in new]
    html = segments_html(new, tag="ins")
    assert '<ins class="diff-word">remains</ins> <ins class="diff-figure">£12,570</ins>' in html
    # Punctuation next to a changed figure is not part of the change.
    _, new = word_diff("up to £12,500, then", "up to £12,570, then")
    assert segments_html(new, tag="ins") == 'up to <ins class="diff-figure">£12,570</ins>, then'
    # Percentages and dates count as figures; the text is escaped.
    old, new = word_diff("Rate 20% from 6 April 2024 <b>", "Rate 22% from 6 May 2025 <b>")
    assert {s.text for s in new if s.kind == FIGURE} == {"22%", "May 2025"}
    assert "&lt;b&gt;" in segments_html(new, tag="ins")


def test_page_highlights_the_changed_amount_in_both_units(expert_client, pa_pair):
    page = page_of(expert_client.get(REVIEW_URL))
    assert '<del class="diff-figure">£12,500</del>' in page
    assert '<ins class="diff-figure">£12,570</ins>' in page
    assert '<del class="diff-word">is</del>' in page
    assert '<ins class="diff-word">remains</ins>' in page


def test_queue_lists_pending_pairs_most_confident_first(expert_client, expert):
    low, high = isa_pair(confidence=0.55), personal_allowance_pair(confidence=0.93)
    decided = CandidateFactory(confidence=0.99)
    candidate_reject(candidate_id=decided.pk, user=expert)
    page = page_of(expert_client.get(REVIEW_URL))
    assert page.index(f'id="pair-row-{high.pk}"') < page.index(f'id="pair-row-{low.pk}"')
    assert f'id="pair-row-{decided.pk}"' not in page
    assert f'data-pair-id="{high.pk}"' in page.split('id="review-pair"')[1]  # shown first


@pytest.mark.parametrize(
    "query",
    [
        {"category": "income_tax"},
        {"concept": "personal_allow"},
        {"min_confidence": "0.9"},
        {"source": "income-tax-rates"},
    ],
)
def test_filters_narrow_the_queue_in_an_htmx_swap(expert_client, query):
    kept, dropped = personal_allowance_pair(), isa_pair()
    response = expert_client.get(REVIEW_URL, query, **HTMX)
    fragment = page_of(response)
    assert fragment.lstrip().startswith('<div id="review-workspace">')
    assert "<html" not in fragment
    assert f'id="pair-row-{kept.pk}"' in fragment
    assert f'id="pair-row-{dropped.pk}"' not in fragment
    # The filters travel with the decision, so the next pair is taken from the same list.
    name, value = next(iter(query.items()))
    assert f'<input type="hidden" name="{name}" value="{value}">' in fragment


def test_bad_minimum_confidence_is_reported_and_filters_nothing(expert_client, pa_pair):
    other = isa_pair()
    page = page_of(expert_client.get(REVIEW_URL, {"min_confidence": "2"}))
    assert "Minimum confidence: Ensure this value is less than or equal to 1." in page
    assert f'id="pair-row-{other.pk}"' in page and f'id="pair-row-{pa_pair.pk}"' in page


def test_pair_fragment_for_htmx_and_a_redirect_for_a_plain_browser(expert_client, pa_pair):
    other = isa_pair()
    fragment = page_of(expert_client.get(pair_url(other), {"source": "gov.uk"}, **HTMX))
    assert fragment.lstrip().startswith('<article class="pair"')
    assert f'data-pair-id="{other.pk}"' in fragment and "<html" not in fragment
    assert '<input type="hidden" name="source" value="gov.uk">' in fragment
    response = expert_client.get(pair_url(other))
    assert response.status_code == 302 and response["Location"].endswith(f"?pair={other.pk}")
    assert (
        expert_client.get(reverse("curation:review-pair", args=[999999]), **HTMX).status_code == 404
    )


def test_a_decided_pair_shows_who_decided_it_and_no_buttons(expert_client, other_expert, pa_pair):
    candidate_approve(candidate_id=pa_pair.pk, user=other_expert, note="new tax year")
    fragment = page_of(expert_client.get(pair_url(pa_pair), **HTMX))
    assert "Approved by alice at" in fragment and "new tax year" in fragment
    assert "decision-form" not in fragment


# --- decisions --------------------------------------------------------------------------------


def test_approve_updates_the_units_and_swaps_in_the_next_pair(expert_client, expert, pa_pair):
    following = isa_pair()
    response = expert_client.post(decide_url(pa_pair), {"decision": "approve"}, **HTMX)
    fragment = page_of(response)
    pa_pair.refresh_from_db()
    assert (pa_pair.status, pa_pair.reviewer) == ("approved", expert)
    older = AtomicUnit.objects.get(pk=pa_pair.older_id)
    assert older.superseded_by_id == pa_pair.newer_id
    assert older.superseded_date == dt.date(2021, 4, 6)
    assert fragment.lstrip().startswith('<div id="review-workspace">')
    assert f"Approved pair {pa_pair.pk}." in fragment
    assert f'data-pair-id="{following.pk}"' in fragment.split('id="review-pair"')[1]
    assert '<strong class="decided-count">1</strong> of 2 pairs decided' in fragment
    assert '<strong class="pending-count">1</strong> pending' in fragment


def test_reject_keeps_the_note_and_changes_no_unit(expert_client, pa_pair):
    response = expert_client.post(
        decide_url(pa_pair), {"decision": "reject", "note": "different allowances"}, **HTMX
    )
    assert f"Rejected pair {pa_pair.pk}." in page_of(response)
    pa_pair.refresh_from_db()
    assert (pa_pair.status, pa_pair.note) == ("rejected", "different allowances")
    assert AtomicUnit.objects.get(pk=pa_pair.older_id).superseded_by_id is None
    assert "Nothing to review" in page_of(response)


def test_flag_for_deletion_removes_the_older_unit(expert_client, pa_pair):
    page_of(expert_client.post(decide_url(pa_pair), {"decision": "flag"}, **HTMX))
    pa_pair.refresh_from_db()
    assert pa_pair.status == "flagged_for_deletion"
    older = AtomicUnit.objects.get(pk=pa_pair.older_id)
    assert older.deleted_at is not None and older.ordinal is None
    assert AtomicUnit.objects.get(pk=pa_pair.newer_id).ordinal == 1


def test_plain_form_post_redirects_back_with_a_message(expert_client, pa_pair):
    response = expert_client.post(
        decide_url(pa_pair), {"decision": "reject", "concept": "income_tax"}, follow=True
    )
    assert response.redirect_chain[0][0] == f"{REVIEW_URL}?concept=income_tax"
    assert f"Rejected pair {pa_pair.pk}." in page_of(response)


def test_unknown_decision_is_refused_and_changes_nothing(expert_client, pa_pair):
    fragment = page_of(expert_client.post(decide_url(pa_pair), {"decision": "delete"}, **HTMX))
    assert "Choose a decision." in fragment
    pa_pair.refresh_from_db()
    assert pa_pair.status == "pending"


def test_late_decision_says_who_decided_first_and_when(expert_client, other_expert, pa_pair):
    following = isa_pair()
    candidate_approve(candidate_id=pa_pair.pk, user=other_expert)
    pa_pair.refresh_from_db()
    when = timezone.localtime(pa_pair.decided_at).strftime("%Y-%m-%d %H:%M")
    response = expert_client.post(
        decide_url(pa_pair), {"decision": "reject", "note": "too late"}, **HTMX
    )
    fragment = page_of(response)
    assert f"Pair {pa_pair.pk} was already approved by alice at {when}" in fragment
    assert "your decision was not applied" in fragment
    assert f'data-pair-id="{following.pk}"' in fragment.split('id="review-pair"')[1]
    pa_pair.refresh_from_db()
    assert (pa_pair.status, pa_pair.reviewer, pa_pair.note) == ("approved", other_expert, "")


def test_refused_decision_shows_the_reason_and_keeps_the_pair(expert_client, expert, pa_pair):
    # Another pair with the same older unit: once one is approved, the other would fork the chain.
    rival = CandidateFactory(
        older=pa_pair.older,
        newer=UnitFactory(concept=pa_pair.concept, valid_from=dt.date(2022, 4, 6)),
        confidence=0.5,
    )
    candidate_approve(candidate_id=pa_pair.pk, user=expert)
    fragment = page_of(expert_client.post(decide_url(rival), {"decision": "approve"}, **HTMX))
    assert f"Pair {rival.pk} was not approved: unit {pa_pair.older_id} is already superseded" in (
        fragment
    )
    assert f'data-pair-id="{rival.pk}"' in fragment.split('id="review-pair"')[1]
    rival.refresh_from_db()
    assert rival.status == "pending"


def test_too_long_note_is_refused_by_the_service(expert_client, pa_pair):
    fragment = page_of(
        expert_client.post(decide_url(pa_pair), {"decision": "reject", "note": "x" * 2001}, **HTMX)
    )
    assert "note: at most 2000 characters" in fragment
    pa_pair.refresh_from_db()
    assert pa_pair.status == "pending"


def test_bulk_approve_reports_approved_and_skipped_with_reasons(
    expert_client, other_expert, pa_pair
):
    second = isa_pair()
    taken = CandidateFactory(confidence=0.7)
    candidate_reject(candidate_id=taken.pk, user=other_expert)
    response = expert_client.post(
        reverse("curation:review-bulk-approve"),
        {"ids": [pa_pair.pk, second.pk, taken.pk], "note": "yearly uprating"},
        **HTMX,
    )
    fragment = page_of(response)
    assert f"Approved 2 pairs ({pa_pair.pk}, {second.pk}); skipped 1." in fragment
    assert f"pair {taken.pk} skipped: already rejected by alice at" in fragment
    statuses = dict(SupersedingCandidate.objects.values_list("pk", "status"))
    assert statuses == {pa_pair.pk: "approved", second.pk: "approved", taken.pk: "rejected"}
    assert SupersedingCandidate.objects.get(pk=second.pk).note == "yearly uprating"


def test_bulk_approve_with_nothing_selected_says_so(expert_client, pa_pair):
    fragment = page_of(expert_client.post(reverse("curation:review-bulk-approve"), {}, **HTMX))
    assert "Select at least one pair to approve." in fragment


def test_progress_and_chart_count_todays_decisions(expert_client, expert, other_expert):
    approved, rejected, _ = personal_allowance_pair(), isa_pair(), CandidateFactory()
    candidate_approve(candidate_id=approved.pk, user=expert)
    candidate_reject(candidate_id=rejected.pk, user=other_expert)
    page = page_of(expert_client.get(REVIEW_URL))
    assert '<strong class="decided-count">2</strong> of 3 pairs decided' in page
    today = timezone.localdate().isoformat()
    assert f'data-day="{today}" data-total="2"' in page
    assert page.count('class="bar bar-approved"') == 1
    assert page.count('class="bar bar-rejected"') == 1


def test_decisions_per_day_stacks_the_last_fourteen_days(expert):
    today = timezone.localdate()
    moments = {
        "approved": today - dt.timedelta(days=2),
        "rejected": today - dt.timedelta(days=2),
        "flagged_for_deletion": today,
    }
    for status, day in moments.items():
        candidate = CandidateFactory()
        noon = timezone.make_aware(dt.datetime.combine(day, dt.time(12)))
        SupersedingCandidate.objects.filter(pk=candidate.pk).update(
            status=status, decided_at=noon, reviewer=expert
        )
    too_old = CandidateFactory()
    SupersedingCandidate.objects.filter(pk=too_old.pk).update(
        status="approved", decided_at=timezone.now() - dt.timedelta(days=20)
    )
    days = decisions_per_day(today=today)
    assert len(days) == 14 and days[-1].day == today
    assert (days[-3].approved, days[-3].rejected, days[-3].flagged) == (1, 1, 0)
    assert days[-1].flagged == 1 and sum(day.total for day in days) == 3
    chart = decisions_chart(days)
    two_ago = chart.columns[-3]
    assert [bar.kind for bar in two_ago.bars] == ["approved", "rejected"]
    assert sum(bar.height for bar in two_ago.bars) == chart.plot_height  # the busiest day


# --- the decision log -------------------------------------------------------------------------


def test_decision_log_shows_who_what_when_note_and_changes(expert_client, expert, pa_pair):
    candidate_approve(candidate_id=pa_pair.pk, user=expert, note="new tax year")
    page = page_of(expert_client.get(DECISIONS_URL))
    event = AuditEvent.objects.get(action="candidate.approved")
    assert f'id="event-{event.pk}"' in page
    assert "expert1" in page and ">approved<" in page and "new tax year" in page
    assert f"Unit {pa_pair.newer_id} replaces unit {pa_pair.older_id} from 2021-04-06" in page
    older_row = f"<td>unit {pa_pair.older_id}</td><td>superseded by</td><td>—</td>"
    assert f"{older_row}<td>unit {pa_pair.newer_id}</td>" in page
    assert f"<td>pair {pa_pair.pk}</td><td>reviewer</td><td>—</td><td>expert1</td>" in page
    assert f"<td>pair {pa_pair.pk}</td><td>status</td><td>Pending</td><td>Approved</td>" in page


def test_decision_log_shows_only_what_changed(expert_client, expert):
    from curation.services.superseding import candidate_flag_for_deletion

    concept = ConceptFactory()
    first = UnitFactory(concept=concept, valid_from=dt.date(2023, 4, 6))
    second = UnitFactory(concept=concept, valid_from=dt.date(2024, 4, 6))
    third = UnitFactory(concept=concept, valid_from=dt.date(2025, 4, 6))
    pair = CandidateFactory(older=first, newer=second)
    candidate_flag_for_deletion(candidate_id=pair.pk, user=expert)
    page = page_of(expert_client.get(DECISIONS_URL))
    assert f"<td>unit {first.pk}</td><td>ordinal</td><td>1</td><td>—</td>" in page
    assert f"<td>unit {third.pk}</td><td>ordinal</td><td>3</td><td>2</td>" in page
    assert f"<td>unit {third.pk}</td><td>deleted at</td>" not in page  # unchanged
    assert "<td>Flagged for deletion</td>" in page
    assert "Revert</button>" in page


def test_revert_from_the_log_restores_the_pair_and_marks_the_event(expert_client, expert, pa_pair):
    candidate_approve(candidate_id=pa_pair.pk, user=expert)
    event = AuditEvent.objects.get(action="candidate.approved")
    revert_url = reverse("curation:review-revert", args=[event.pk])
    fragment = page_of(expert_client.post(revert_url, **HTMX))
    assert fragment.lstrip().startswith('<div id="decision-log">')
    assert "The pair is pending again." in fragment
    assert f'id="event-{event.pk}" class="reverted"' in fragment
    assert "Reverted by expert1" in fragment
    pa_pair.refresh_from_db()
    assert pa_pair.status == "pending"
    assert AtomicUnit.objects.get(pk=pa_pair.older_id).superseded_by_id is None

    again = page_of(expert_client.post(revert_url, **HTMX))
    assert f"Decision {event.pk} was not reverted: this change has been reverted already" in again


def test_revert_refused_when_the_pair_was_decided_again(expert_client, expert, pa_pair):
    candidate_approve(candidate_id=pa_pair.pk, user=expert)
    first = AuditEvent.objects.get(action="candidate.approved")
    expert_client.post(reverse("curation:review-revert", args=[first.pk]), **HTMX)
    candidate_reject(candidate_id=pa_pair.pk, user=expert)
    fragment = page_of(
        expert_client.post(reverse("curation:review-revert", args=[first.pk]), **HTMX)
    )
    assert f"Decision {first.pk} was not reverted" in fragment
    assert SupersedingCandidate.objects.get(pk=pa_pair.pk).status == "rejected"


# --- the snapshot -----------------------------------------------------------------------------


@pytest.mark.parametrize("who", ["expert", "editor"])
def test_snapshot_marks_the_units_quote_at_its_offsets(client, request, pa_pair, who):
    client.force_login(request.getfixturevalue(who))
    unit = pa_pair.older
    url = reverse("curation:snapshot", args=[unit.snapshot_id])
    page = page_of(client.get(url, {"unit": unit.pk}))
    assert f'<mark id="evidence">{OLD_TEXT}</mark>' in page
    assert "Income Tax rates and bands. <mark" in page
    assert "https://www.gov.uk/income-tax-rates" in page
    # A unit of another snapshot is not shown against this one.
    assert client.get(url, {"unit": pa_pair.newer_id}).status_code == 404


def test_snapshot_finds_a_quote_whose_offsets_drifted(expert_client, pa_pair):
    AtomicUnit.objects.filter(pk=pa_pair.older_id).update(evidence_start=0, evidence_end=5)
    url = reverse("curation:snapshot", args=[pa_pair.older.snapshot_id])
    page = page_of(expert_client.get(url, {"unit": pa_pair.older_id}))
    assert "its offsets do not hold its quote" in page
    assert f'<mark id="evidence">{OLD_TEXT}</mark>' in page


# --- who may use the screens ------------------------------------------------------------------


def screen_requests(candidate, event_id: int = 1):
    return [
        ("get", REVIEW_URL, {}),
        ("get", pair_url(candidate), {}),
        ("post", decide_url(candidate), {"decision": "approve"}),
        ("post", reverse("curation:review-bulk-approve"), {"ids": [candidate.pk]}),
        ("get", DECISIONS_URL, {}),
        ("post", reverse("curation:review-revert", args=[event_id]), {}),
    ]


def test_anonymous_is_sent_to_the_admin_login(client, pa_pair):
    for method, url, data in screen_requests(pa_pair):
        response = getattr(client, method)(url, data)
        assert response.status_code == 302, url
        assert response["Location"].startswith("/admin/login/?next=")
    response = client.get(REVIEW_URL, **HTMX)
    assert response.status_code == 401 and response["HX-Refresh"] == "true"
    snapshot = reverse("curation:snapshot", args=[pa_pair.older.snapshot_id])
    assert client.get(snapshot)["Location"].startswith("/admin/login/")


def test_editors_and_other_staff_are_refused(client, editor, pa_pair):
    staff = get_user_model().objects.create_user("ops", password="pw-123456", is_staff=True)
    for user in (editor, staff):
        client.force_login(user)
        for method, url, data in screen_requests(pa_pair):
            assert getattr(client, method)(url, data).status_code == 403, (user, url)
    pa_pair.refresh_from_db()
    assert pa_pair.status == "pending"
    snapshot = reverse("curation:snapshot", args=[pa_pair.older.snapshot_id])
    assert client.get(snapshot).status_code == 403  # plain staff may not read snapshots


def test_api_token_alone_does_not_open_the_screens(client, pa_pair):
    _, raw = api_token_create(name="downstream app")
    headers = {"HTTP_AUTHORIZATION": f"Bearer {raw}"}
    assert client.get(REVIEW_URL, **headers)["Location"].startswith("/admin/login/")
    response = client.post(decide_url(pa_pair), {"decision": "approve"}, **headers)
    assert response.status_code == 302
    pa_pair.refresh_from_db()
    assert pa_pair.status == "pending"


def test_superuser_may_review(client, superuser, pa_pair):
    client.force_login(superuser)
    assert client.get(REVIEW_URL).status_code == 200


def test_decisions_need_a_csrf_token(expert, pa_pair):
    client = Client(enforce_csrf_checks=True)
    client.force_login(expert)
    refused = client.post(decide_url(pa_pair), {"decision": "approve"}, **HTMX)
    assert refused.status_code == 403
    pa_pair.refresh_from_db()
    assert pa_pair.status == "pending"

    page = page_of(client.get(REVIEW_URL))
    token = client.cookies["csrftoken"].value
    assert "X-CSRFToken" in page  # htmx sends it from hx-headers
    accepted = client.post(
        decide_url(pa_pair), {"decision": "approve"}, HTTP_X_CSRFTOKEN=token, **HTMX
    )
    assert accepted.status_code == 200
    pa_pair.refresh_from_db()
    assert pa_pair.status == "approved"

    revert = reverse("curation:review-revert", args=[AuditEvent.objects.get().pk])
    assert client.post(revert, **HTMX).status_code == 403


def test_screens_are_linked_from_the_home_page_and_the_jobs_screen(client, expert):
    assert REVIEW_URL in page_of(client.get("/"))
    client.force_login(expert)
    jobs = page_of(client.get("/curation/jobs/"))
    assert REVIEW_URL in jobs and DECISIONS_URL in jobs


# --- signing units off ------------------------------------------------------------------------


def signoff_url(unit) -> str:
    return reverse("curation:review-unit-signoff", args=[unit.pk])


def signoff_revert_url(event) -> str:
    return reverse("curation:review-signoff-revert", args=[event.pk])


def test_each_unit_of_the_pair_can_be_signed_off_from_the_screen(expert_client, pa_pair):
    page = page_of(expert_client.get(REVIEW_URL))
    assert page.count("Pending sign-off") == 2
    for unit in (pa_pair.older, pa_pair.newer):
        assert f'hx-post="{signoff_url(unit)}"' in page
        assert f"Sign off unit {unit.pk}" in page


def test_signing_off_shows_who_and_when_and_can_be_undone(expert_client, expert, pa_pair):
    newer = pa_pair.newer
    data = {"pair": pa_pair.pk, "note": "figure checked"}
    page = page_of(expert_client.post(signoff_url(newer), data, **HTMX))
    newer.refresh_from_db()
    assert newer.review_status == AtomicUnit.ReviewStatus.APPROVED
    event = AuditEvent.objects.get(action="signoff.unit")
    assert (event.actor, event.target_id, event.note) == (expert, newer.pk, "figure checked")
    assert 'id="review-workspace"' in page and f"Signed off unit {newer.pk}" in page
    when = timezone.localtime(event.created_at).strftime("%Y-%m-%d %H:%M")
    assert f"Signed off by <strong>expert1</strong> at {when}" in page
    assert f'hx-post="{signoff_revert_url(event)}"' in page
    assert page.count("Pending sign-off") == 1  # the older unit still waits

    page = page_of(expert_client.post(signoff_revert_url(event), {"pair": pa_pair.pk}, **HTMX))
    newer.refresh_from_db()
    assert newer.review_status == AtomicUnit.ReviewStatus.PENDING
    assert AuditEvent.objects.get(action="signoff.unit.revert").reverts == event
    assert page.count("Pending sign-off") == 2


def test_a_refused_sign_off_says_why_on_the_screen(expert_client, other_expert, pa_pair):
    from curation.services.signoff import unit_signoff

    unit_signoff(unit_id=pa_pair.older.pk, user=other_expert)
    page = page_of(expert_client.post(signoff_url(pa_pair.older), {"pair": pa_pair.pk}, **HTMX))
    assert f"Unit {pa_pair.older.pk} was not signed off: " in page
    assert "already signed off by alice" in page
    page = page_of(expert_client.post(signoff_url(pa_pair.newer), {"note": "x" * 2001}, **HTMX))
    assert "note: at most 2000 characters" in page
    assert (
        expert_client.post(reverse("curation:review-unit-signoff", args=[999_999])).status_code
        == 404
    )


def test_a_plain_sign_off_post_redirects_back_to_the_pair_with_a_message(expert_client, pa_pair):
    response = expert_client.post(signoff_url(pa_pair.older), {"pair": pa_pair.pk})
    assert response.status_code == 302
    assert response["Location"] == f"{REVIEW_URL}?pair={pa_pair.pk}"
    page = page_of(expert_client.get(response["Location"]))
    assert f"Signed off unit {pa_pair.older.pk}" in page


def test_editors_may_not_sign_off_or_undo_a_sign_off(client, editor, expert, pa_pair):
    from curation.services.signoff import unit_signoff

    event = unit_signoff(unit_id=pa_pair.older.pk, user=expert)
    client.force_login(editor)
    assert client.post(signoff_url(pa_pair.newer), {"pair": pa_pair.pk}, **HTMX).status_code == 403
    assert client.post(signoff_revert_url(event), **HTMX).status_code == 403
    statuses = AtomicUnit.objects.filter(pk__in=[pa_pair.older.pk, pa_pair.newer.pk])
    assert dict(statuses.values_list("pk", "review_status")) == {
        pa_pair.older.pk: "approved",
        pa_pair.newer.pk: "pending",
    }


def test_signing_off_needs_a_csrf_token(expert, pa_pair):
    client = Client(enforce_csrf_checks=True)
    client.force_login(expert)
    assert client.post(signoff_url(pa_pair.newer), {"pair": pa_pair.pk}, **HTMX).status_code == 403
    pa_pair.newer.refresh_from_db()
    assert pa_pair.newer.review_status == "pending"


def test_a_pair_id_that_is_not_a_plain_number_is_ignored_not_a_500(expert_client, pa_pair):
    """ "²".isdigit() is true but int("²") fails."""
    assert expert_client.get(REVIEW_URL, {"pair": "²"}).status_code == 200
    response = expert_client.post(signoff_url(pa_pair.newer), {"pair": "²"}, **HTMX)
    assert response.status_code == 200
