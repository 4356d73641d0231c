"""Request and response shapes of the public API (`XIn` / `XOut`), a module per topic."""
