"""Telling: what a running trial reports and leaves (its handle, artifacts, folds), and
how its outcome is recorded or pruned."""
