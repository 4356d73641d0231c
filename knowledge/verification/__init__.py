"""Checking an assistant's drafted answer against the knowledge base: its claims (`claims`),
the units each is checked against (`evidence`), whether a unit states a claim's figure and
about what (`unit_figures`), and each claim's verdict from the units (`check`)."""
