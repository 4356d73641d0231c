"""Fitting the outcome decision: a logistic model over the searches' signals (answerable or
not), and the confidence at or above which a search answers `ok`, chosen so that at most a
target share of the training fold's answerable questions is refused. Cross-validated with
folds grouped by gold page (a page's questions never sit on both sides; unanswerable ones are
grouped by topic), which is the figure to report; the model written for the API is fitted on
all the questions the same way."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from knowledge.retrieval.confidence import MODEL_FILE, SIGNALS

FOLDS = 5
FALSE_REFUSAL_TARGET = 0.05  # on the training fold: refuse at most 1 answerable question in 20
REGULARISATION = 1.0


@dataclass
class Labelled:
    id: str
    kind: str
    group: str
    answerable: bool
    signals: dict[str, float]
    below_quality_only: bool = False
    # The rules found no topic of the taxonomy, or nothing in force on the day asked about:
    # refused whatever the model says.
    no_topic: bool = False
    # Served, the answer would be `outdated` (its leading units past the newest period held),
    # which is right for an unanswerable question, and for an answerable one only when
    # `outdated_right` (no date asked, and a gold unit served).
    outdated: bool = False
    outdated_right: bool = False

    def served_right(self) -> bool:
        """Whether serving this question's answer is right (eval README: Outcome accuracy)."""
        if self.outdated:
            return not self.answerable or self.outdated_right
        return self.answerable


@dataclass
class CrossValidated:
    confidence: dict[str, float] = field(default_factory=dict)  # by question id, held out
    ok: dict[str, bool] = field(default_factory=dict)
    thresholds: list[float] = field(default_factory=list)

    def figures(self, items: list[Labelled]) -> dict:
        answerable = [i for i in items if i.answerable]
        unanswerable = [i for i in items if not i.answerable]
        by_kind: dict[str, dict] = {}
        for kind in sorted({i.kind for i in items}):
            mine = [i for i in items if i.kind == kind]
            by_kind[kind] = {
                "n": len(mine),
                "false_refusals": _share([not self.ok[i.id] for i in mine if i.answerable]),
                "wrong_answers": _share(
                    [self.ok[i.id] and not i.outdated for i in mine if not i.answerable]
                ),
            }
        return {
            "false_refusals": _share([not self.ok[i.id] for i in answerable]),
            # An unanswerable question answered `outdated` (the newest figure held, said to
            # be out of date) is as right as a refusal.
            "unanswerable_refused": _share([not self.ok[i.id] or i.outdated for i in unanswerable]),
            "outcome_accuracy": _share([self._right(i) for i in items]),
            "thresholds": [round(t, 3) for t in self.thresholds],
            "by_kind": by_kind,
        }

    def _right(self, item: Labelled) -> bool:
        return item.served_right() if self.ok[item.id] else not item.answerable


def _share(flags: list[bool]) -> float | None:
    return round(sum(flags) / len(flags), 4) if flags else None


def _matrix(items: list[Labelled]) -> tuple[np.ndarray, np.ndarray]:
    x = np.array([[item.signals.get(name, 0.0) for name in SIGNALS] for item in items])
    y = np.array([item.answerable for item in items], dtype=int)
    return x, y


def _fit(items: list[Labelled]):
    from sklearn.linear_model import LogisticRegression

    x, y = _matrix(items)
    # No class weights: the probability then means the observed share of answerable questions.
    model = LogisticRegression(C=REGULARISATION, max_iter=1000)
    return model.fit(x, y)


def _threshold(model, items: list[Labelled], *, target: float) -> float:
    """The highest confidence threshold that refuses at most `target` of the answerable."""
    x, _ = _matrix([i for i in items if i.answerable])
    scores = np.sort(model.predict_proba(x)[:, 1])
    allowed = min(int(np.floor(target * len(scores))), len(scores) - 1)
    return float(scores[allowed]) if len(scores) else 0.5


def _decides_ok(confidence: float, threshold: float, item: Labelled) -> bool:
    return confidence >= threshold and not item.below_quality_only and not item.no_topic


def cross_validate(
    items: list[Labelled], *, target: float = FALSE_REFUSAL_TARGET
) -> CrossValidated:
    from sklearn.model_selection import GroupKFold

    x, y = _matrix(items)
    groups = [item.group for item in items]
    result = CrossValidated()
    for train, test in GroupKFold(n_splits=FOLDS).split(x, y, groups):
        fold = [items[i] for i in train]
        model = _fit(fold)
        threshold = _threshold(model, fold, target=target)
        result.thresholds.append(threshold)
        for index, confidence in zip(test, model.predict_proba(x[test])[:, 1], strict=True):
            item = items[index]
            result.confidence[item.id] = float(confidence)
            result.ok[item.id] = _decides_ok(float(confidence), threshold, item)
    return result


def model_fit(
    items: list[Labelled], *, target: float = FALSE_REFUSAL_TARGET, cv: dict, source: str = ""
) -> dict:
    """The model on all the questions, as `outcome_model()` reads it. `source`: the file
    they come from (our own labelled questions; the dev file is a test)."""
    model = _fit(items)
    return {
        "weights": {
            name: round(float(w), 4) for name, w in zip(SIGNALS, model.coef_[0], strict=True)
        },
        "bias": round(float(model.intercept_[0]), 4),
        "threshold": round(_threshold(model, items, target=target), 4),
        "fitted": {
            "on": f"{len(items)} questions ({sum(i.answerable for i in items)} answerable)"
            + (f" of {source}" if source else ""),
            "date": dt.date.today().isoformat(),
            "false_refusal_target": target,
            "cross_validated": {
                k: v for k, v in cv.items() if k not in ("by_kind", "reliability_plot", "model")
            },
        },
    }


def model_write(data: dict, path: Path = MODEL_FILE) -> Path:
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return path


def plot_reliability(
    items: list[Labelled], cv: CrossValidated, *, path: Path, bins: int = 10
) -> Path:
    """Held-out confidence against the observed share of answerable questions, by bin, with
    each bin's count: a confidence that means what it says sits on the diagonal."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    confidence = np.array([cv.confidence[i.id] for i in items])
    answerable = np.array([i.answerable for i in items], dtype=float)
    edges = np.linspace(0, 1, bins + 1)
    which = np.clip(np.digitize(confidence, edges) - 1, 0, bins - 1)
    centres, observed, counts = [], [], []
    for b in range(bins):
        mask = which == b
        if mask.any():
            centres.append(confidence[mask].mean())
            observed.append(answerable[mask].mean())
            counts.append(int(mask.sum()))
    figure, axis = plt.subplots(figsize=(5.5, 5))
    axis.plot([0, 1], [0, 1], linestyle="--", color="grey", label="perfectly reliable")
    axis.plot(centres, observed, marker="o", color="#1d70b8", label="held-out (cross-validated)")
    for x, y, n in zip(centres, observed, counts, strict=True):
        axis.annotate(str(n), (x, y), textcoords="offset points", xytext=(4, -10), fontsize=8)
    axis.set_xlabel("predicted confidence")
    axis.set_ylabel("share of questions the corpus answers")
    axis.set_title("Reliability of the search confidence")
    axis.legend(loc="upper left")
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path
