"""Layer 1, infrastructure: settings, the Redis connection, stream plumbing (entry fields, paged reads), logs, stop
signals and JSON lines. Imports nothing of the service above it. See docs/architecture.md."""
