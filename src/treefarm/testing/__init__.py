"""Conformance suites that every implementation of a pluggable base must pass.

Import them from a test module and subclass them with a fixture that builds
the implementation under test (see each suite's docstring). They need pytest.
"""
