"""Configurations as vectors in the unit cube, and back (the only layer that knows both)."""

from .trees import TreeColumns
from .unit import INACTIVE, Column, UnitEncoding, numeric_unit, numeric_value

__all__ = ["INACTIVE", "Column", "TreeColumns", "UnitEncoding", "numeric_unit", "numeric_value"]
