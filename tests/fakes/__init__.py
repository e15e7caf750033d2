"""Fakes shared by the test suite (never the thing under test)."""
