"""The system of record: the archiver (Redis -> Parquet, local or S3), recall (SQL, one hand, export), the audit
replay that re-settles and proves every archived entry, and signed checkpoints. See docs/archive.md."""
