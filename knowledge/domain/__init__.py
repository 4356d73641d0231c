"""The knowledge base's own types, below the models and the providers: what a page, a unit,
a question and a verdict are, who the user is and whether a statement is for them, and the
rule of a unit's status in time."""
