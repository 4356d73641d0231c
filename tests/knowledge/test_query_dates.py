"""Reading the date a question asks about from its words: tax years, calendar years, months,
exact days, relative years counted from a fixed today, and the words that only look like
dates (amounts, reversed spans, a person's birth)."""

from __future__ import annotations

import datetime as dt

import pytest

from knowledge.text.question_dates import DateMention, date_in_words

TODAY = dt.date(2025, 2, 10)  # inside the 2024 to 2025 tax year


def day_of(text: str, *, today: dt.date = TODAY) -> dt.date | None:
    mention = date_in_words(text, today=today)
    return mention.day if mention else None


# --- tax years and spans ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "day", "phrase"),
    [
        ("How much could I put in a Lifetime ISA in 2018/19?", dt.date(2018, 10, 1), "2018/19"),
        ("what was the personal allowance in 2022-23", dt.date(2022, 10, 1), "2022-23"),
        ("Child Benefit rates 2021–22 please", dt.date(2021, 10, 1), "2021–22"),
        ("the 2020 to 2021 tax year threshold", dt.date(2020, 10, 1), "2020 to 2021"),
        ("was the rate different for 2016/2017?", dt.date(2016, 10, 1), "2016/2017"),
    ],
)
def test_a_tax_year_is_asked_about_on_1_october_of_its_first_year(text, day, phrase):
    mention = date_in_words(text, today=TODAY)

    assert mention == DateMention(day, phrase, mention.reason)
    assert f"{day.year} to {day.year + 1}" in mention.reason


@pytest.mark.parametrize(
    "text",
    [
        "ISA allowance 2019/18",  # reversed
        "Lifetime ISA bonus 2018-2020",  # two years, not one year's span
        "rates 2017/19",
    ],
)
def test_a_span_that_is_not_one_year_is_not_a_date(text):
    assert date_in_words(text, today=TODAY) is None


@pytest.mark.parametrize(
    "text",
    ["What was the ISA limit in 2019/18?", "what were the rates for 2017/19"],
)
def test_a_rejected_span_after_a_preposition_is_not_read_as_its_first_year(text):
    assert date_in_words(text, today=TODAY) is None


@pytest.mark.parametrize(
    "text",
    [
        "I have £2,016 in a savings account",
        "I paid £2016 in tax",
        "my refund was 2016.50",
        "is 2016 a lot to save?",  # a bare number, no word saying it is a year
        "I saved £2,019/month",
    ],
)
def test_amounts_and_bare_numbers_are_not_years(text):
    assert date_in_words(text, today=TODAY) is None


def test_an_amount_beside_a_year_leaves_the_year():
    mention = date_in_words("I earned £20,000 in 2019, what tax did I owe?", today=TODAY)

    assert mention is not None
    assert (mention.day, mention.phrase) == (dt.date(2019, 7, 1), "in 2019")


# --- calendar years ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "day", "phrase"),
    [
        ("what was the State Pension back in 2016?", dt.date(2016, 7, 1), "back in 2016"),
        ("Was Child Benefit taxed in 2012?", dt.date(2012, 7, 1), "in 2012"),
        ("what could I earn before 2016 without paying tax", dt.date(2015, 12, 31), "before 2016"),
        ("rules until 2020", dt.date(2019, 12, 31), "until 2020"),
        ("what has changed since 2020", dt.date(2020, 1, 1), "since 2020"),
    ],
)
def test_a_calendar_year_is_read_with_the_word_before_it(text, day, phrase):
    mention = date_in_words(text, today=TODAY)

    assert mention is not None
    assert (mention.day, mention.phrase) == (day, phrase)


def test_a_year_before_the_twentieth_century_is_not_read():
    assert date_in_words("what was income tax in 1899?", today=TODAY) is None


def test_after_a_year_is_a_day_after_that_year():
    assert day_of("how did Marriage Allowance change after 2016?") > dt.date(2016, 12, 31)


def test_a_tax_year_across_the_century_is_read():
    assert day_of("what was the personal allowance in 1999/00?") == dt.date(1999, 10, 1)


# --- months and days --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("what was the minimum wage in July 2024?", dt.date(2024, 7, 15)),
        ("rules in Sept 2023", dt.date(2023, 9, 15)),
        ("the rate in sept. 2023", dt.date(2023, 9, 15)),
    ],
)
def test_a_month_is_asked_about_in_its_middle(text, day):
    mention = date_in_words(text, today=TODAY)

    assert mention is not None
    assert mention.day == day
    assert "middle of the month" in mention.reason


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("What changed on 6 April 2024?", dt.date(2024, 4, 6)),
        ("the rate on 1st May 2023", dt.date(2023, 5, 1)),
        ("what was it on April 6, 2024", dt.date(2024, 4, 6)),
        ("what applied on 30th October 2024", dt.date(2024, 10, 30)),
    ],
)
def test_an_exact_day_is_that_day(text, day):
    mention = date_in_words(text, today=TODAY)

    assert mention is not None
    assert mention.day == day
    assert mention.reason == f"the date {day:%-d %B %Y} in the question"


def test_an_impossible_day_falls_back_to_its_month():
    assert day_of("what was due on 31 February 2024?") == dt.date(2024, 2, 15)


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("what was the threshold before April 2016?", dt.date(2016, 3, 31)),
        ("the rules before 6 April 2024", dt.date(2024, 4, 5)),
        ("what applied prior to 6 April 2016", dt.date(2016, 4, 5)),
    ],
)
def test_before_a_month_or_day_is_the_day_before_it(text, day):
    mention = date_in_words(text, today=TODAY)

    assert mention is not None
    assert mention.day == day
    assert mention.reason.startswith("just before")


# --- relative to today ------------------------------------------------------------------------


def test_last_tax_year_counts_from_today():
    mention = date_in_words("how much tax did I pay last tax year?", today=TODAY)

    assert mention is not None
    assert mention.day == dt.date(2023, 10, 1)  # today is in 2024-25, so last is 2023-24
    assert mention.phrase == "last tax year"
    assert "2023 to 2024 tax year" in mention.reason


@pytest.mark.parametrize(
    ("today", "day"),
    [
        (dt.date(2025, 4, 5), dt.date(2023, 10, 1)),  # the last day of 2024-25
        (dt.date(2025, 4, 6), dt.date(2024, 10, 1)),  # the first day of 2025-26
    ],
)
def test_last_tax_year_turns_over_on_6_april(today, day):
    assert day_of("my earnings last tax year", today=today) == day


@pytest.mark.parametrize("words", ["previous tax year", "last tax year"])
def test_previous_is_the_same_as_last(words):
    assert day_of(f"what was the rate for the {words}?") == dt.date(2023, 10, 1)


@pytest.mark.parametrize("words", ["next tax year", "coming tax year"])
def test_next_tax_year_counts_from_today(words):
    mention = date_in_words(f"what will the allowance be in the {words}?", today=TODAY)

    assert mention is not None
    assert mention.day == dt.date(2025, 10, 1)
    assert "2025 to 2026 tax year" in mention.reason


@pytest.mark.parametrize("words", ["this tax year", "the current tax year"])
def test_this_tax_year_is_today(words):
    mention = date_in_words(f"how much can I save {words}?", today=TODAY)

    assert mention is not None
    assert mention.day == TODAY


def test_last_year_is_the_middle_of_the_previous_calendar_year():
    mention = date_in_words("what did the State Pension go up by last year?", today=TODAY)

    assert mention is not None
    assert mention.day == dt.date(2024, 7, 1)
    assert "2024" in mention.reason


@pytest.mark.parametrize(
    ("today", "day"),
    [
        (dt.date(2025, 2, 10), dt.date(2025, 4, 6)),
        (dt.date(2025, 4, 5), dt.date(2025, 4, 6)),
        (dt.date(2025, 4, 6), dt.date(2026, 4, 6)),  # already in April's tax year: the next one
        (dt.date(2025, 11, 30), dt.date(2026, 4, 6)),
    ],
)
def test_from_next_april_is_the_next_tax_years_first_day(today, day):
    mention = date_in_words("what changes from next April?", today=today)

    assert mention is not None
    assert mention.day == day
    assert mention.phrase == "from next April"
    assert f"from 6 April {day.year}" in mention.reason


# --- dates about a person ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "I was born in March 1970, when do I get my State Pension?",
        "Born in March 1970 - what is my pension age?",
        "I was born in 1962, can I get Pension Credit?",
    ],
)
def test_a_date_of_birth_is_not_the_date_asked_about(text):
    assert date_in_words(text, today=TODAY) is None


def test_a_date_asked_about_beside_a_date_of_birth_is_still_read():
    mention = date_in_words(
        "I was born in March 1970; what was the National Insurance rate in 2023/24?",
        today=TODAY,
    )

    assert mention is not None
    assert (mention.day, mention.phrase) == (dt.date(2023, 10, 1), "2023/24")


@pytest.mark.parametrize(
    "text",
    [
        "I was born on 6 April 1960, when do I reach State Pension age?",
        "born 6 April 1960 - when can I retire?",
    ],
)
def test_a_full_date_of_birth_is_not_the_date_asked_about(text):
    assert date_in_words(text, today=TODAY) is None


# --- which date wins, and what is said about it -----------------------------------------------


def test_the_most_precise_reading_wins_over_an_earlier_vaguer_one():
    mention = date_in_words("in 2016 and again in 2018/19, what was the limit?", today=TODAY)

    assert mention is not None
    assert mention.phrase == "2018/19"


def test_of_two_readings_of_one_kind_the_first_in_the_text_wins():
    mention = date_in_words("compare 2019/20 with 2023/24", today=TODAY)

    assert mention is not None
    assert mention.phrase == "2019/20"


def test_no_date_in_the_words_is_none():
    assert date_in_words("How do I apply for Marriage Allowance?", today=TODAY) is None


def test_a_mention_reports_its_day_phrase_and_reason_as_json():
    mention = date_in_words("what was the rate in 2018/19?", today=TODAY)

    assert mention is not None
    assert mention.as_json() == {
        "date": "2018-10-01",
        "phrase": "2018/19",
        "reason": mention.reason,
    }
    assert mention.reason  # says why that day, never empty
