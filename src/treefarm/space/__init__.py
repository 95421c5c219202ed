"""The search-space language: primitives, join, product, application,
recursion and shared sub-spaces; configurations, sampling and building."""

from .analysis import analyze
from .build import Expression, build, params, trace, validate
from .canonical import canonical, has_rules
from .chosen import Chosen
from .config import Config
from .convert import I, R, convert
from .extension import addresses, enumerate_configs, size
from .nodes import Apply, Const, Family, Join, Op, Shared, Space, op
from .primitives import Choice, Int, Real
from .priors import Normal, Uniform
from .recursion import Var
from .sample import as_generator, draw_decision, sample, unsupported, within_support
from .variables import Loop, cell
from .walk import Args, Decide, walk

__all__ = [
    "Apply",
    "Args",
    "Choice",
    "Chosen",
    "Config",
    "Const",
    "Decide",
    "Expression",
    "Family",
    "I",
    "Int",
    "Join",
    "Loop",
    "Normal",
    "Op",
    "R",
    "Real",
    "Shared",
    "Space",
    "Uniform",
    "Var",
    "addresses",
    "analyze",
    "as_generator",
    "build",
    "canonical",
    "cell",
    "convert",
    "draw_decision",
    "enumerate_configs",
    "has_rules",
    "op",
    "params",
    "sample",
    "size",
    "trace",
    "unsupported",
    "validate",
    "walk",
    "within_support",
]
