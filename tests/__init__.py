"""The test suite: a package, so that its modules import what they share as tests.helpers."""
