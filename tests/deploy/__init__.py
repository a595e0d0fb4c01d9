"""Tests of the deployment files (deploy/, docker-compose.yml), with their own tools."""
