"""What a study is and what it has seen: its stored identity and opening, its objectives
over its trials' outcomes, and its incremental view of the trials (deduplication, warm
starts, rows)."""
