"""Asking: claiming a trial in the storage and choosing its configuration, at one or
several fidelities."""
