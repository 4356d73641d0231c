"""Understanding a question before it is searched: the vocabulary around the taxonomy
(`vocabulary`), who analyses a conversation turn (`analysis`), and the searches a turn is
expanded into and merged from (`search`). Dates in words and glossary expansion are pure
functions on the ground floor (`knowledge.text.question_dates`, `knowledge.text.glossary`), since the
heuristic analysis behind the provider interface uses them too."""
