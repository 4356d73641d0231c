"""Reading what a text states, against the units of the knowledge base, with no search of
its own: the claims of an answer and their figures (`claims`), the figures a unit prints
(`unit_figures`), the exact comparison of a claim's figure with a unit's (`compare`), and
whether a unit is about the same quantity as a claim or a question (`aboutness`, read by the
trained model of knowledge/reader/). Below retrieval, so that a search can ask whether its
shown units state what was asked, and above the models and the text readers it reads with."""
