"""Checking an assistant's drafted answer against the knowledge base: the units each claim
is checked against (`evidence`), what is held for a quantity (`holdings`), the person's rule
(`person`), and each claim's verdict (`check`), from the readings of knowledge.reading (the
claims, their figures, aboutness and the exact comparison)."""
