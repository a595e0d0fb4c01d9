"""Tests of the worker (showdown_service.worker) on fakeredis and real servers: commits, faults, tournaments."""
