"""The trained aboutness reader ships with a manifest that matches it: the data it was trained
on (our own labelled claims, by hash), its features, the cross-validated figures that chose it,
and the command that rebuilds it; and it is read without scikit-learn."""

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from knowledge.reading.aboutness import FEATURES, MODEL_FILE, served_reader

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "evaluation" / "data" / "claims.jsonl"


def test_the_model_file_says_what_it_was_trained_on_and_how_it_was_chosen():
    trained = json.loads(MODEL_FILE.read_text(encoding="utf-8"))
    manifest = trained["manifest"]
    assert manifest["data"] == DATA.name
    # retrain (`manage.py train_reader`) when the labelled claims change
    assert manifest["data_sha256"] == hashlib.sha256(DATA.read_bytes()).hexdigest()[:16]
    assert tuple(trained["model"]["features"]) == FEATURES
    assert "train_reader" in manifest["rebuild"] and manifest["base_weights"]
    verdicts = manifest["cv_verdicts"]
    better = max(("model", "rules"), key=lambda name: verdicts[name]["objective"])
    assert trained["serves"] == better
    assert {"rules", "model"} <= set(manifest["cv_aboutness"])


def test_the_served_reader_is_the_one_cross_validation_chose():
    trained = json.loads(MODEL_FILE.read_text(encoding="utf-8"))
    reader = served_reader()
    assert reader.name == trained["serves"]
    if reader.model is not None:
        assert vars(reader.cuts) == trained["cuts"]


SERVED_WITHOUT_SKLEARN = """
import sys
sys.modules["sklearn"] = None  # importing it would fail
import django
django.setup()
from knowledge.reading.aboutness import served_reader
print(served_reader().name)
"""


def test_reading_the_model_needs_no_scikit_learn():
    found = subprocess.run(
        [sys.executable, "-c", SERVED_WITHOUT_SKLEARN],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "DEBUG": "true", "DJANGO_SETTINGS_MODULE": "navigator.settings"},
    )
    assert found.returncode == 0, found.stderr
    assert found.stdout.strip() in ("model", "rules")


def test_a_file_fitted_on_other_features_is_refused_and_retraining_reads_with_another(tmp_path):
    from knowledge.reading.aboutness import RULES, read_with

    trained = json.loads(MODEL_FILE.read_text(encoding="utf-8"))
    trained["serves"], trained["model"]["features"] = "model", ["similarity"]
    older = tmp_path / "aboutness.json"
    older.write_text(json.dumps(trained), encoding="utf-8")
    with pytest.raises(ValueError, match="train_reader"):
        served_reader(older)
    with read_with(RULES):
        assert served_reader(older) is RULES
    assert served_reader().name == json.loads(MODEL_FILE.read_text())["serves"]
