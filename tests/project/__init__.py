"""Tests of the project as a whole: architecture, docs, README, releases, packaging, benches' own checks."""
