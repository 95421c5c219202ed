"""Design screens and one-off studies: the lab notebook's tools (see ``bench/notes/``)."""
