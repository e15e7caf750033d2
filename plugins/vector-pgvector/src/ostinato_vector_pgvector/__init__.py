"""ostinato-vector-pgvector (package being built)."""
