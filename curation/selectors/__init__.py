"""Reads for the curation screens and reports, one module a screen or area."""
