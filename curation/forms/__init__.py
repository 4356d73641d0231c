"""What the curation screens accept from a person: one module of forms per area."""
