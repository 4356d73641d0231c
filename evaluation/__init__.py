"""Navigator's top floor: how well it does, measured. Nothing that serves imports it.

Every evaluation and benchmark lives here, each with its command under `management/commands`:
`thresholds` (the threshold gold: gold file, amounts, scoring, superseding chains, the report),
`retrieval` and `outcome_fit` (the dev questions through search, and the fitted ok/refuse
decision), `verification` (claim checking), `profile` (searches for a person), `tool_calls`
(when an assistant should call), `binding` (concept binding against the audit judgements),
`superseding` (the detector's proposals against the experts' decisions and the gold chains),
`llm` (the model paths, `make eval-llm`), `floors` (the gate's floors) and `bench` (search and
ingest benchmarks that drive the whole stack). scikit-learn and matplotlib, the `eval` extra,
are imported here only.
"""
