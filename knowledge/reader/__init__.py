"""Trained models the serving code reads as data, one file each with its manifest (base
weights, the data and its hash, the seed, the cross-validated figures, the command that
rebuilds it): `aboutness.json`, whether a unit is about the same quantity as a claim
(knowledge.reading.aboutness; rebuilt by `manage.py train_reader`). Nothing here is
downloaded at run time, and scikit-learn, which fits them, is never imported to read them."""
