"""The evaluation's floors: `--floors` parsed and checked against a hand-built report, with
false refusals a ceiling and refusal figures unmeasured without cross-validation."""

import pytest
from django.core.management import CommandError, call_command

from evaluation.management.commands.eval_retrieval import _below_floors, _floors


def _report(*, cv: bool = True) -> dict:
    report = {
        "answerable": {"recall@5": 0.91},
        "by_kind": {"follow_up": {"recall@5": 0.88}, "abbreviation": {"recall@5": 0.8}},
        "aspect_coverage@10": {"covered": 0.86},
    }
    if cv:
        report["cross_validated"] = {"unanswerable_refused": 0.5, "false_refusals": 0.1}
    return report


def test_floors_parse_names_and_numbers():
    floors = _floors("recall@5=0.95, refused=0.85,false_refusals_max=0.12 ,aspects=.8,")

    assert floors == {
        "recall@5": 0.95,
        "refused": 0.85,
        "false_refusals_max": 0.12,
        "aspects": 0.8,
    }
    assert _floors("") == {}


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("recall@10=0.9", "'recall@10'"),
        ("recall@5=0.9,refusd=0.8", "'refusd'"),
        ("refused=high", "'high'"),
        ("follow_up", "follow_up needs a number"),
    ],
)
def test_an_unknown_figure_or_a_bad_number_is_named(text, named):
    with pytest.raises(CommandError, match=named):
        _floors(text)


def test_the_command_rejects_bad_floors_before_evaluating():
    with pytest.raises(CommandError, match="unknown figure 'recal@5'"):
        call_command("eval_retrieval", "--floors", "recal@5=0.9")


def test_the_served_decision_is_fitted_on_our_own_questions_only(tmp_path):
    other = tmp_path / "dev_questions.jsonl"
    other.write_text("", encoding="utf-8")
    with pytest.raises(CommandError, match="our own labelled questions only"):
        call_command("eval_retrieval", str(other), "--cv", "--write-model")


def test_the_served_false_refusals_are_a_ceiling():
    floors = _floors("served_false_refusals_max=0.05")

    assert _below_floors({**_report(), "false_refusal_share": 0.04}, floors) == []
    assert _below_floors({**_report(), "false_refusal_share": 0.08}, floors) == [
        "served_false_refusals_max: 0.080 above 0.05"
    ]


def test_figures_at_or_above_their_floors_pass():
    floors = _floors("recall@5=0.91,refused=0.5,follow_up=0.85,abbreviation=0.8,aspects=0.86")

    assert _below_floors(_report(), floors) == []


def test_each_figure_under_its_floor_is_named_with_both_values():
    floors = _floors("recall@5=0.95,refused=0.6,follow_up=0.9,abbreviation=0.85,aspects=0.9")

    assert _below_floors(_report(), floors) == [
        "recall@5: 0.910 below 0.95",
        "refused: 0.500 below 0.6",
        "follow_up: 0.880 below 0.9",
        "abbreviation: 0.800 below 0.85",
        "aspects: 0.860 below 0.9",
    ]


def test_false_refusals_is_a_ceiling():
    report = _report()  # false refusals 0.1

    assert _below_floors(report, {"false_refusals_max": 0.08}) == [
        "false_refusals_max: 0.100 above 0.08"
    ]
    assert _below_floors(report, {"false_refusals_max": 0.1}) == []
    assert _below_floors(report, {"false_refusals_max": 0.5}) == []


def test_refusal_figures_without_cross_validation_are_not_measured():
    floors = {"refused": 0.1, "false_refusals_max": 0.9, "recall@5": 0.5}

    assert _below_floors(_report(cv=False), floors) == [
        "refused: not measured (refusal figures need --cv)",
        "false_refusals_max: not measured (refusal figures need --cv)",
    ]


def test_a_kind_the_questions_lack_is_not_measured():
    report = _report()
    del report["by_kind"]["abbreviation"]

    failures = _below_floors(report, {"abbreviation": 0.5})

    assert len(failures) == 1 and failures[0].startswith("abbreviation: not measured")


def test_a_missing_kind_is_not_blamed_on_cross_validation():
    report = _report()
    del report["by_kind"]["abbreviation"]

    (failure,) = _below_floors(report, {"abbreviation": 0.5})

    assert "--cv" not in failure


def test_a_floor_that_is_not_a_number_is_refused():
    with pytest.raises(CommandError, match="refused"):
        _floors("refused=nan")


def test_floors_missed_names_what_was_not_measured_and_why():
    from evaluation.floors import floors_missed

    missed = floors_missed(
        {"accuracy": 0.7, "missed_max": 0.02, "recall": None},
        {"accuracy": 0.75, "missed_max": 0.01, "recall": 0.9},
        unmeasured=lambda name: f"{name} needs more data",
    )
    assert missed == [
        "accuracy: 0.700 below 0.75",
        "missed_max: 0.020 above 0.01",
        "recall: not measured (recall needs more data)",
    ]


def test_eval_verify_rejects_bad_floors_before_evaluating():
    with pytest.raises(CommandError, match="unknown figure 'acuracy'"):
        call_command("eval_verify", "--floors", "acuracy=0.9")
