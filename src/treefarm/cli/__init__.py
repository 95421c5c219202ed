"""The ``treefarm`` command line: run, studies, show, export."""
