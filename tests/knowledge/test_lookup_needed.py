"""Whether a turn needs the knowledge base at all: the heuristic analysis' `none` with its
reason, on the real taxonomy file's vocabulary (topic names, glossary). The messages are
written here, in the words people use, not taken from the evaluation files."""

from __future__ import annotations

import datetime as dt

import pytest

from knowledge.domain.questions import ConversationTurn
from knowledge.providers import HeuristicProvider
from knowledge.query.vocabulary import taxonomy_file_vocabulary

TODAY = dt.date(2025, 2, 10)
ISA_TALK = [
    ConversationTurn("user", "How much can I put in a Lifetime ISA?"),
    ConversationTurn("assistant", "You can put in up to £4,000 a year until you're 50."),
]


@pytest.fixture(scope="module")
def vocabulary():
    return taxonomy_file_vocabulary()


def analysed(vocabulary, message: str, conversation=()):
    return HeuristicProvider().analyse_query(
        query=message, conversation=list(conversation), vocabulary=vocabulary, today=TODAY
    )


@pytest.mark.parametrize(
    "message",
    [
        "how much can i earn before i pay anything",  # a rule in everyday words
        "can i get money for my baby",
        "what help is there for new parents",
        "do I pay stamp duty on my first home",
        "how much is carers allowence",  # misspelt
        "wat do u need to earn before paying bak ur student lone",
        "when do I get my P60",
        "Add £50 to my fuel budget and tell me the ISA allowance",  # own plan and a rule
        "What's 10% of £2,000, and is that the basic rate of tax?",  # a sum and a rule
        "I'm moving to Portugal next year, will my State Pension still go up?",  # UK rule abroad
        "Can we get Child Benefit if my partner works in Germany?",
        "Do I pay UK tax on rent from a flat in Spain?",
        "I earned £14,000 in 2023-24, do I get money back?",  # a year's range is not a sum
        "What's the minimum wage for 18-20 year olds?",
        "What help is there with mortgage interest if I lose my job?",
        "what's the most i can gift my grandkids",
    ],
)
def test_a_turn_about_a_uk_rule_needs_a_lookup(vocabulary, message):
    analysis = analysed(vocabulary, message)
    assert analysis.strategy != "none", message
    assert analysis.no_lookup == ""


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        ("tell me a joke", "small_talk"),
        ("who won the match last night?", "small_talk"),
        ("thanks, that's all", "small_talk"),
        ("what's 12 times 7", "arithmetic"),
        ("what's 7% of 2,000", "arithmetic"),
        ("how much did I spend on fuel last week", "own_plan"),
        ("can you rename my savings pot", "own_plan"),
        ("how do I delete my account", "own_plan"),
        ("What is compound interest?", "general"),
        ("Should I buy Tesla shares?", "general"),
        ("What are the income tax rates in Germany?", "other_country"),
        ("How does the pension system work in France?", "other_country"),
        ("What's the sales tax in California?", "other_country"),
        ("please set a budget of £300 for food", "own_plan"),
        ("remind me to pay my rent on Friday", "own_plan"),
        ("What's a Roth IRA?", "other_country"),
    ],
)
def test_a_turn_that_names_no_uk_rule_needs_none_and_says_why(vocabulary, message, reason):
    analysis = analysed(vocabulary, message)
    assert (analysis.strategy, analysis.no_lookup) == ("none", reason), message


def test_a_follow_up_leaning_on_a_rule_needs_a_lookup(vocabulary):
    analysis = analysed(vocabulary, "would I lose the bonus then?", ISA_TALK)
    assert analysis.strategy == "specific"


@pytest.mark.parametrize(
    "message",
    [
        "could you say that again more simply?",
        "so £4,000 a year until 50, is that what you said?",  # restating names the rule
        "I don't follow that, in plain English please",
    ],
)
def test_asking_to_restate_the_answer_needs_none(vocabulary, message):
    analysis = analysed(vocabulary, message, ISA_TALK)
    assert (analysis.strategy, analysis.no_lookup) == ("none", "restates_answer")


def test_a_shorter_period_is_a_rule_question_not_a_request_to_rephrase(vocabulary):
    analysis = analysed(
        vocabulary, "Is there a shorter waiting period for statutory sick pay?", ISA_TALK
    )
    assert analysis.strategy != "none"


def test_restating_needs_a_conversation_to_restate(vocabulary):
    analysis = analysed(vocabulary, "did you say the ISA allowance is £20,000?")
    assert analysis.strategy == "specific"


def test_a_life_event_asked_openly_is_looked_up_though_it_names_no_money(vocabulary):
    analysis = analysed(vocabulary, "I'm turning 66 next year, what changes for me?")
    assert analysis.strategy == "broad"
