"""The optimize loop: ask a batch, evaluate it inline, in threads, in processes or on an
executor, tell the outcomes, recover lost trials, and stop by its rules."""
