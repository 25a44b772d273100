"""Stores under .sleuth/: SQLite is the truth; tantivy and vectors derive from it."""
