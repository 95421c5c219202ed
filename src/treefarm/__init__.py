"""treefarm: optimize expensive black-box functions over structured search spaces."""

__version__ = "0.1.0"
