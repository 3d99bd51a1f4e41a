//! Shared helpers for the corpus tests (see `tests/tests/`).
