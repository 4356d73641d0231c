"""Part 2 of claim checking measured and fitted: is a candidate unit about the same quantity
as the claim? Pairs come from our own labelled claims (evaluation/data/claims.jsonl): every
candidate of a supported or contradicted claim, labelled about when it quotes a gold span or
states the same thing as a unit that does (another capture's row, its figures aside).
Unsupported claims say nothing of which unit they are about and are left out. Folds are
grouped by page, so a page's claims are never on both sides; the rules and the fitted model
are scored on the same held-out pairs."""

from __future__ import annotations

import hashlib
import itertools
import random
import re
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import numpy as np
from rapidfuzz import fuzz

from evaluation.claim_parts import gold_unit, matched_claims
from evaluation.verification import (
    CaseResult,
    VerifyCase,
    case_group,
    case_read,
    cases_prepared,
    summarise_verification,
)
from knowledge.embeddings import get_embedder
from knowledge.models import AtomicUnit
from knowledge.reading.aboutness import (
    FEATURES,
    RULES,
    AboutnessModel,
    Cuts,
    Reader,
    rules_about,
)
from knowledge.verification.check import Prepared

FOLDS = 5
SEED = 20261207
# rapidfuzz token-set ratio of two texts of one concept, their figures and years out: the same
# row of another capture, however its cells were laid out.
SAME_STATEMENT = 90


@dataclass
class Pair:
    case: str
    claim: str
    group: str
    unit_id: int
    features: dict[str, float]
    about: bool


@dataclass
class PartFigures:
    """Held-out figures of one reading: pair accuracy, precision and recall of `about`, and
    how often the claim's best candidate is one it is about (claims with one among theirs)."""

    accuracy: float
    precision: float
    recall: float
    best_right: float
    thresholds: list[float] = field(default_factory=list)

    def as_json(self) -> dict:
        return {k: round(v, 4) if isinstance(v, float) else v for k, v in vars(self).items()}


def labelled_pairs(cases: list[VerifyCase], prepared: dict[str, list]) -> list[Pair]:
    """`prepared`: each case's claims as `claims_prepared` gives them (candidates and their
    signals, read once)."""
    pairs = []
    live = _live_units()
    for case in cases:
        items = {(p.claim.start, p.claim.end): p for p in prepared[case.id]}
        claims = [p.claim for p in prepared[case.id]]
        for gold, claim in matched_claims(case, claims):
            if not gold.gold:
                continue
            item = items[(claim.start, claim.end)]
            held = [unit for unit in live if gold_unit(unit, gold.gold)]
            for found, features in zip(item.evidence, item.features, strict=True):
                pairs.append(
                    Pair(
                        case.id,
                        gold.text,
                        case_group(case),
                        found.unit.pk,
                        features,
                        any(_same_statement(found.unit, unit) for unit in held),
                    )
                )
    return pairs


def _live_units() -> tuple[AtomicUnit, ...]:
    return tuple(AtomicUnit.objects.filter(deleted_at__isnull=True).select_related("source"))


_FIGURES_AND_YEARS = re.compile(r"£?\d[\d,.]*%?p?")


def _same_statement(unit: AtomicUnit, gold: AtomicUnit) -> bool:
    if unit.pk == gold.pk:
        return True
    if unit.concept_id != gold.concept_id:
        return False
    a, b = (_FIGURES_AND_YEARS.sub(" ", u.text).lower() for u in (unit, gold))
    return fuzz.token_set_ratio(a, b) >= SAME_STATEMENT


def matrix(pairs: list[Pair]) -> np.ndarray:
    return np.asarray([[p.features[name] for name in FEATURES] for p in pairs], dtype=float)


def model_fit(pairs: list[Pair]) -> AboutnessModel:
    """A logistic model on standardised features, the threshold the one of best F1 on the
    pairs it is fitted on."""
    from sklearn.linear_model import LogisticRegression

    x, y = matrix(pairs), np.asarray([p.about for p in pairs])
    means, scales = x.mean(axis=0), x.std(axis=0)
    scales[scales == 0] = 1.0
    fitted = LogisticRegression(C=1.0, max_iter=2000).fit((x - means) / scales, y)
    model = AboutnessModel(
        tuple(float(w) for w in fitted.coef_[0]),
        float(fitted.intercept_[0]),
        tuple(float(m) for m in means),
        tuple(float(s) for s in scales),
        0.5,
    )
    probabilities = [model.probability(p.features) for p in pairs]
    threshold = max(
        (t / 100 for t in range(10, 91, 5)),
        key=lambda t: _f1([pr >= t for pr in probabilities], [p.about for p in pairs]),
    )
    return AboutnessModel(model.weights, model.bias, model.means, model.scales, threshold)


def cross_validated(pairs: list[Pair]) -> dict[str, PartFigures]:
    """The rules and the model, each scored on held-out folds grouped by page."""
    from sklearn.model_selection import GroupKFold

    groups = [p.group for p in pairs]
    model_says: dict[int, float] = {}
    thresholds = []
    for train, test in GroupKFold(n_splits=FOLDS).split(pairs, groups=groups):
        model = model_fit([pairs[i] for i in train])
        thresholds.append(model.threshold)
        for i in test:
            model_says[i] = model.probability(pairs[i].features) - model.threshold
    rules = _figures(pairs, [1.0 if rules_about(p.features) else -1.0 for p in pairs])
    learned = _figures(pairs, [model_says[i] for i in range(len(pairs))])
    learned.thresholds = thresholds
    return {"rules": rules, "model": learned}


def pair_figures(pairs: list[Pair], reader: Reader) -> PartFigures:
    """A reading's figures on pairs, without fitting: a pair is about when its score reaches
    the reading's cut."""
    margins = [
        (1.0 if rules_about(p.features) else -1.0)
        if reader.model is None
        else reader.score(p.features) - reader.cuts.about
        for p in pairs
    ]
    return _figures(pairs, margins)


def _figures(pairs: list[Pair], margins: list[float]) -> PartFigures:
    said = [m >= 0 for m in margins]
    truth = [p.about for p in pairs]
    right = sum(s == t for s, t in zip(said, truth, strict=True))
    claimed = [t for s, t in zip(said, truth, strict=True) if s]
    best_right, claims = 0, 0
    by_claim: dict[tuple[str, str], list[int]] = {}
    for i, p in enumerate(pairs):
        by_claim.setdefault((p.case, p.claim), []).append(i)
    for members in by_claim.values():
        if any(truth[i] for i in members):
            claims += 1
            best = max(members, key=lambda i: (margins[i], pairs[i].features["similarity"]))
            best_right += truth[best] and said[best]
    return PartFigures(
        accuracy=right / len(pairs),
        precision=sum(claimed) / len(claimed) if claimed else 0.0,
        recall=sum(s and t for s, t in zip(said, truth, strict=True)) / max(1, sum(truth)),
        best_right=best_right / max(1, claims),
    )


def _f1(said: list[bool], truth: list[bool]) -> float:
    tp = sum(s and t for s, t in zip(said, truth, strict=True))
    return 2 * tp / max(1, sum(said) + sum(truth))


def data_hash(pairs: list[Pair]) -> str:
    digest = hashlib.sha256()
    for p in pairs:
        digest.update(f"{p.case}|{p.claim}|{p.unit_id}|{p.about}\n".encode())
    return digest.hexdigest()[:16]


# --- the aboutness reading, cross-validated ----------------------------------------------------

CUT_GRID = {
    "about": (0.1, 0.15, 0.2, 0.3, 0.4),
    "margin": (0.0, 0.05, 0.1, 0.2, 1.0),
    "meaning": (0.2, 0.3, 0.4, 0.5, 0.6),
    "behind": (0.2, 0.35, 0.5, 1.0),
}


def verdicts_cross_validated(cases: list[VerifyCase], prepared: dict[str, list[Prepared]]) -> dict:
    """Held-out verdicts of the model reading (fitted, with its cuts, on the other folds'
    answers; folds grouped by page) beside the rules' on the same answers. The cuts are
    chosen for verdict accuracy plus contradicted recall, weighed equally: a wrong amount
    passed as supported is the failure that matters most."""
    splits = _splits(cases)
    held_out, chosen, _ = _held_out(cases, prepared, splits)
    folds = [list(test) for _, test in splits]
    rules = [case_read(case, prepared[case.id], RULES) for case in cases]
    return {
        "model": _headline(held_out)
        | {"cuts_chosen": chosen, "by_fold": [_headline([held_out[i] for i in f]) for f in folds]},
        "rules": _headline(rules) | {"by_fold": [_headline([rules[i] for i in f]) for f in folds]},
    }


# Shares of the training pages a learning curve fits on.
CURVE_SHARES = (0.25, 0.5, 0.75, 1.0)


def learning_curve(
    cases: list[VerifyCase], prepared: dict[str, list[Prepared]], *, progress=print
) -> list[dict]:
    """Held-out verdicts of the model reading fitted on a share of each fold's training pages
    (the same pages at every share, drawn once with SEED; the held-out folds never change):
    whether more labelled claims of the same kind would move the figures, or the reading
    would have to."""
    groups = [case_group(case) for case in cases]
    splits = _splits(cases)
    curve = []
    for share in CURVE_SHARES:

        def kept(train, share=share):
            pages = sorted({groups[i] for i in train})
            random.Random(SEED).shuffle(pages)
            chosen = set(pages[: max(1, round(share * len(pages)))])
            return [i for i in train if groups[i] in chosen]

        held_out, _, fitted_on = _held_out(cases, prepared, splits, training_of=kept)
        point = {
            "share": share,
            "training_answers": round(sum(fitted_on) / len(fitted_on)),  # a fold's, on average
        }
        curve.append(point | _headline(held_out))
        progress(f"learning curve: {curve[-1]}")
    return curve


def _splits(cases: list[VerifyCase]) -> list:
    """The folds, grouped by page."""
    from sklearn.model_selection import GroupKFold

    groups = [case_group(case) for case in cases]
    return list(GroupKFold(n_splits=FOLDS).split(cases, groups=groups))


def _held_out(cases, prepared, splits, *, training_of=lambda train: train):
    """Each answer read by the model and cuts fitted on the other folds' answers (those
    `training_of` keeps of them): the results, each fold's cuts, each fold's answer count."""
    held_out: list[CaseResult | None] = [None] * len(cases)
    chosen, fitted_on = [], []
    for train, test in splits:
        training = [cases[i] for i in training_of(train)]
        fitted_on.append(len(training))
        reader = best_cuts(training, prepared, model_fit(labelled_pairs(training, prepared)))
        chosen.append(vars(reader.cuts))
        for i in test:
            held_out[i] = case_read(cases[i], prepared[cases[i].id], reader)
    return held_out, chosen, fitted_on


def _headline(results: list[CaseResult]) -> dict:
    summary = summarise_verification(results)
    return {
        "verdict_accuracy": summary["verdict_accuracy"],
        "contradicted_recall": summary["contradicted_recall"],
        "supported_precision": summary["supported_precision"],
        "unsupported_recall": summary["accuracy_by_class"]["unsupported"],
        "missed_claims": summary["missed_claims"],
        "objective": round(_objective(results), 4),
    }


def best_cuts(cases: list[VerifyCase], prepared, model) -> Reader:
    readers = [
        Reader("model", model, Cuts(*values)) for values in itertools.product(*CUT_GRID.values())
    ]
    return max(
        readers,
        key=lambda reader: _objective([case_read(c, prepared[c.id], reader) for c in cases]),
    )


def _objective(results: list[CaseResult]) -> float:
    pairs = [pair for r in results for pair in r.pairs]
    accuracy = sum(want == got for want, got, _ in pairs) / len(pairs)
    contradicted = [got == "contradicted" for want, got, _ in pairs if want == "contradicted"]
    return accuracy + (sum(contradicted) / len(contradicted) if contradicted else 0.0)


# --- the reader trained and written -------------------------------------------------------------


def reader_train(cases: list[VerifyCase], *, data_path: Path, progress=print) -> dict:
    """Fit the aboutness model on every labelled claim and choose its cuts; cross-validate
    both readings (folds grouped by page) to say which one serves. Returns what the model
    file holds: the reading that serves, the model, its cuts and its manifest."""
    progress(f"reading the candidates of {len(cases)} answers")
    prepared = cases_prepared(cases)
    pairs = labelled_pairs(cases, prepared)
    progress(f"{len(pairs)} labelled pairs, {sum(p.about for p in pairs)} about; cross-validating")
    parts = {name: figures.as_json() for name, figures in cross_validated(pairs).items()}
    verdicts = verdicts_cross_validated(cases, prepared)
    progress("fitting on every answer")
    model = model_fit(pairs)
    reader = best_cuts(cases, prepared, model)
    better = verdicts["model"]["objective"] > verdicts["rules"]["objective"]
    return {
        "serves": "model" if better else "rules",
        "model": model.as_json(),
        "cuts": vars(reader.cuts),
        "manifest": {
            "what": "whether a candidate unit is about the same quantity as a claim, its "
            "figures out of the reckoning (knowledge.reading.aboutness)",
            "base_weights": f"{get_embedder().name} (the similarities among the features)",
            "data": data_path.name,
            "data_sha256": hashlib.sha256(data_path.read_bytes()).hexdigest()[:16],
            "pairs": len(pairs),
            "pairs_sha256": data_hash(pairs),
            "knowledge_base_units": AtomicUnit.objects.filter(deleted_at__isnull=True).count(),
            "seed": SEED,
            "folds": FOLDS,
            "cv_aboutness": parts,
            "cv_verdicts": verdicts,
            "trained_on": date.today().isoformat(),
            "rebuild": "manage.py train_reader, on the knowledge base the eval gate builds from "
            "the corpus",
        },
    }
