"""Search spaces written as data: the JSON (or YAML) form of the flat and conditional
space language, for programs that are not Python (``treefarm create --space``).

A space file is a mapping of parameter names to parameters. A parameter is
either a plain value (a constant: a number, a string, true/false, null), or a
mapping with a ``type``:

- ``{"type": "real", "low": L, "high": H, "log": false}``: a real in [L, H]
  (``log: true`` searches its logarithm), as :class:`~treefarm.Real`;
- ``{"type": "int", "low": L, "high": H, "log": false}``: an integer in
  [L, H], as :class:`~treefarm.Int`;
- ``{"type": "choice", "values": [...], "weights": [...]}``: one of the values
  (JSON scalars; ``weights`` optional), as :class:`~treefarm.Choice`;
- ``{"type": "join", "options": {"name": {...}, ...}, "weights": [...]}``: one
  of the named options, each a mapping of its own parameters (a conditional
  branch: they exist only when the option is chosen), as :class:`~treefarm.Join`;
  the value it builds knows its option (:class:`~treefarm.Chosen`);
- ``{"type": "const", "value": V}``: a constant that is itself a mapping or list.

A mapping without ``type`` groups parameters (a nested dict). Every mistake is
a :class:`~treefarm.SpaceError` naming the parameter's address
(``optimizer.sgd.momentum``) and what was expected; the bounds and values are
then checked by the space's own constructors, with their messages.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..exceptions import SpaceError
from .convert import convert
from .nodes import Const, Join, Space
from .primitives import Choice, Int, Real

__all__ = ["TYPES", "load_space_file", "read_space_data", "space_from_data"]

TYPES: dict[str, tuple[set[str], set[str]]] = {
    "real": ({"low", "high"}, {"log"}),
    "int": ({"low", "high"}, {"log"}),
    "choice": ({"values"}, {"weights"}),
    "join": ({"options"}, {"weights"}),
    "const": ({"value"}, set()),
}
"""Each parameter type's required and optional keys (besides ``type``)."""


def _fail(address: str, rule: str, got: object) -> SpaceError:
    return SpaceError(f"{rule}, but got {address or 'the space'}={got!r}")


def _group(data: Mapping[Any, Any], address: str) -> dict[str, Space]:
    members: dict[str, Space] = {}
    for key, value in data.items():
        if not isinstance(key, str) or not key:
            raise _fail(address, "a parameter name must be a non-empty string", key)
        members[key] = _parameter(value, f"{address}.{key}" if address else key)
    return members


def _flag(spec: Mapping[str, Any], address: str) -> bool:
    log = spec.get("log", False)
    if not isinstance(log, bool):
        raise _fail(f"{address}.log", "log must be true or false", log)
    return log


def _weights(spec: Mapping[str, Any], address: str) -> list[float] | None:
    weights = spec.get("weights")
    if weights is not None and not isinstance(weights, list):
        raise _fail(f"{address}.weights", "weights must be a list of numbers", weights)
    return weights


def _typed(spec: Mapping[str, Any], address: str) -> Space:
    kind = spec["type"]
    if kind not in TYPES:
        raise _fail(f"{address}.type", f"a parameter's type must be one of {sorted(TYPES)}", kind)
    required, optional = TYPES[kind]
    missing = sorted(required - set(spec))
    unknown = sorted(set(spec) - required - optional - {"type"})
    if missing:
        raise _fail(
            address, f"a {kind} parameter needs the keys {sorted(required)}; {missing} is missing", dict(spec)
        )
    if unknown:
        raise _fail(
            address,
            f"a {kind} parameter takes the keys {sorted(required | optional)}; {unknown} is unknown",
            dict(spec),
        )
    return _make(kind, spec, address)


def _construct(address: str, node: Callable[..., Space], *args: Any, **kwargs: Any) -> Space:
    """``node(*args, **kwargs)``, its SpaceError prefixed with the parameter's address."""
    try:
        return node(*args, **kwargs)
    except SpaceError as error:
        raise SpaceError(f"{address}: {error}") from None


def _make(kind: str, spec: Mapping[str, Any], address: str) -> Space:
    if kind == "real":
        return _construct(address, Real, spec["low"], spec["high"], log=_flag(spec, address))
    if kind == "int":
        return _construct(address, Int, spec["low"], spec["high"], log=_flag(spec, address))
    if kind == "const":
        return _construct(address, Const, spec["value"])
    if kind == "choice":
        values = spec["values"]
        if not isinstance(values, list) or not values:
            raise _fail(f"{address}.values", "values must be a non-empty list", values)
        return _construct(address, Choice, *values, weights=_weights(spec, address))
    options = spec["options"]
    if not isinstance(options, Mapping) or not options:
        raise _fail(
            f"{address}.options", "options must be a non-empty mapping of option names to parameters", options
        )
    built: dict[str, Any] = {}
    for label, option in options.items():
        where = f"{address}.{label}"
        if not isinstance(option, Mapping) or "type" in option:
            raise _fail(
                where, "a join's option must be a mapping of its own parameters (may be empty: {})", option
            )
        built[str(label)] = convert(_group(option, where))
    return _construct(address, Join, **built, weights=_weights(spec, address))


def _parameter(value: Any, address: str) -> Space:
    if isinstance(value, Mapping):
        if "type" in value:
            return _typed(value, address)
        return convert(_group(value, address))
    if isinstance(value, list):
        raise _fail(address, 'a list of values must be written {"type": "choice", "values": [...]}', value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return Const(value)
    raise _fail(address, "a parameter must be a plain value or a mapping", value)


def space_from_data(data: Any) -> Space:
    """The space a parsed space file describes (see the module docstring)."""
    if not isinstance(data, Mapping) or not data:
        raise _fail("", "a space file must hold a non-empty mapping of parameter names to parameters", data)
    return convert(_group(data, ""))


def read_space_data(path: str | os.PathLike[str]) -> Any:
    """The parsed contents of a ``.json``, ``.yaml`` or ``.yml`` space file (YAML
    needs PyYAML); SpaceError naming the file and the line of a syntax error."""
    file = Path(path)
    if not file.is_file():
        raise SpaceError(f"a space file must be an existing file, but got path={str(file)!r}")
    text = file.read_text(encoding="utf-8")
    if file.suffix.lower() in (".yaml", ".yml"):
        try:
            import yaml
        except ImportError:
            raise SpaceError(
                f"a YAML space file needs PyYAML (pip install pyyaml), or write it as JSON, but got path={str(file)!r}"
            ) from None
        try:
            return yaml.safe_load(text)
        except yaml.YAMLError as error:
            raise SpaceError(
                f"a space file must be valid YAML, but got path={str(file)!r}: {error}"
            ) from None
    if file.suffix.lower() != ".json":
        raise SpaceError(f"a space file must end in .json, .yaml or .yml, but got path={str(file)!r}")
    try:
        return json.loads(text)
    except ValueError as error:
        raise SpaceError(f"a space file must be valid JSON, but got path={str(file)!r}: {error}") from None


def load_space_file(path: str | os.PathLike[str]) -> Space:
    """The space of the file at ``path`` (see :func:`read_space_data`, :func:`space_from_data`)."""
    return space_from_data(read_space_data(path))
