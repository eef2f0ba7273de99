"""What answers look like: output schemas inferred from evidence, and drift between two servers or releases."""
