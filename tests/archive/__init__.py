"""Tests of the archive and its proofs (showdown_service.archive): write-once files, chains, Merkle log."""
