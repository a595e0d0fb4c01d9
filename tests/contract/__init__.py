"""Tests of the message contract (showdown_messages): what is accepted, and why not."""
