"""Query -> classify -> retrieve (lexical, vector) -> fuse -> rank -> results."""
