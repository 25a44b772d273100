"""The `sleuth` command: thin shells over sleuth.Index."""
