"""Layer 2, the archive's files: where they live (a directory or S3), written once, read by DuckDB (recall, lookup).
Imports only :mod:`showdown_service.infra`. See docs/architecture.md."""
