"""The ground floor: pure readers of gov.uk English (amounts, periods, dates, words, the
glossary's matching, quote location, unit comparison). Text in, typed findings out; nothing
here imports the rest of the app or Django (an import-linter contract keeps it so)."""
