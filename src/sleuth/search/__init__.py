"""Query -> classify -> retrieve (lexical, vector) -> rank (``ranking/``) -> results."""
