"""The curation screens, one module a screen. Views are thin: they check who may look, parse
input with a form, call one service or selector and render (see `access` for what they share)."""
