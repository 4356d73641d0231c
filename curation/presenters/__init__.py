"""What the curation screens show, shaped from records: pairs with their word diff, the
decisions chart, audit entries as readable changes, a snapshot with a quote marked."""
