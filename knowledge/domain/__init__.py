"""The knowledge base's own types, below the models and the providers: what a page, a unit,
a question and a verdict are, and the rule of a unit's status in time."""
