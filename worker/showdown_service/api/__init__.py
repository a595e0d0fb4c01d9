"""The read API: ``showdown api`` serves hands, tournaments, dead letters and results over HTTP (FastAPI).

Read-only: nothing it serves writes to Redis. See docs/api.md.
"""
