"""The benchmark harness: problems, every method's adapter (treefarm's and the peers'), the
resumable runner, the screen of design variants, and the report."""
