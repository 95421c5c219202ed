"""The nodes of the search-space language.

A space is an immutable tree (a graph, once variables make it recursive) of
plain typed objects. Its *extension* is the set of Python values it can build.

Primitives make one decision each:

- :class:`Real` — an interval of the reals, optionally on a log scale;
- :class:`Int` — an interval of the integers, optionally on a log scale;
- :class:`Choice` — a categorical over plain values;

and :class:`Const` makes none. Combinators, following the thesis
(Meier, "Bayesian Hyperparameter-Optimization in Grammar-Based Search
Spaces", undated; section "Structure and Construction of Search Spaces"):

- :class:`Join` ``A | B`` — one of its options; ``(A | B)' = A' ∪ B'``, but the
  join remembers its options, which are the decision it makes;
- :class:`Family` — a product of spaces indexed by positions and keywords,
  ``{A_0, B_1, C_γ}``; ``*`` concatenates families (positions of the right
  operand shift, keywords are copied, a keyword on both sides is an error);
- :class:`Apply` ``f(A, k=B)`` — a function applied to a family of arguments,
  made by an :class:`Op` (``op(f)``); this is how dependencies and trees arise;
- :class:`Var` — a forward-declared name, defined later in terms of itself, so
  ``G = f(G, G) | A`` is a grammar;
- :class:`Shared` — a sub-space drawn once per instance and reused wherever it
  appears (the thesis's constants), which makes an instance a DAG.

Join and product form an idempotent semiring on extensions: ``Join()`` is the
zero (it annihilates a product), ``Family()`` the one.

The primitives live in :mod:`treefarm.space.primitives` and variables in
:mod:`treefarm.space.recursion`; this module holds the base class and the
combinators every other node is built from.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from ..exceptions import SpaceError, format_values
from ..validation import check_bool, is_integer, is_number

__all__ = ["Apply", "Const", "Family", "Join", "Op", "Shared", "Space", "as_space", "check_key", "check_weights", "op", "product"]


class Space:
    """Base of every node. ``A | B`` joins, ``A * B`` takes the product of families.

    Nodes are immutable: constructors set their slots with ``object.__setattr__``.
    """

    __slots__ = ()

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"spaces are immutable, cannot set {name}")

    def __copy__(self) -> Space:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> Space:
        """A space is immutable, so its copy is itself (scikit-learn's ``clone``
        deep-copies an estimator's parameters, search spaces among them)."""
        return self

    def __setstate__(self, state: tuple[dict[str, object] | None, dict[str, object]]) -> None:
        """Unpickling sets the slots past the immutability guard."""
        for name, value in {**(state[0] or {}), **state[1]}.items():
            object.__setattr__(self, name, value)

    def __or__(self, other: object) -> Join:
        return Join(self, as_space(other))

    def __ror__(self, other: object) -> Join:
        return Join(as_space(other), self)

    def __mul__(self, other: object) -> Space:
        return product(self, as_space(other))

    def __rmul__(self, other: object) -> Space:
        return product(as_space(other), self)

    def children(self) -> tuple[Space, ...]:
        """The spaces directly below this node (a variable's child is its definition)."""
        return ()

def as_space(value: object) -> Space:
    """The space a Python structure describes (see :func:`treefarm.space.convert`): a list or a
    tuple as a positional family built as one, a dict (string keys) as a keyword family built as
    a dict, nested to any depth; a space as it is, any other value but a set as a :class:`Const`."""
    if isinstance(value, Space):
        return value
    if isinstance(value, dict):
        for key in value:
            if not isinstance(key, str):
                raise SpaceError(f"a dict space needs string keys, but got key={key!r}")
        return Family((), {k: as_space(v) for k, v in value.items()})
    if isinstance(value, list):
        return Family([as_space(v) for v in value], kind="list")
    if isinstance(value, tuple):
        return Family([as_space(v) for v in value], kind="tuple")
    check_not_set(value)
    return Const(value)


def check_not_set(value: object) -> None:
    """Refuse a set as a member of a space: its order follows the process's hash seed,
    so its record would differ between two processes opening one study."""
    if isinstance(value, (set, frozenset)):
        raise SpaceError(
            "a set has no order, so a study recorded with it could not be reopened by another process: "
            f"write a tuple for a constant or tf.Choice(*sorted(...)) for a choice, but got {format_values(value=value)}"
        )


def check_weights(owner: str, weights: Sequence[float] | None, n: int) -> tuple[float, ...] | None:
    """``weights`` as floats, one per option of ``owner``, finite, >= 0 and not all 0."""
    if weights is None:
        return None
    if isinstance(weights, (str, bytes, Mapping)) or not isinstance(weights, Iterable):
        raise SpaceError(f"{owner}: weights must be a sequence of numbers, but got {format_values(weights=weights)}")
    given = list(weights)
    if not all(is_number(x) for x in given):
        raise SpaceError(f"{owner}: weights must be numbers, but got {format_values(weights=given)}")
    w = tuple(float(x) for x in given)
    if len(w) != n:
        raise SpaceError(
            f"{owner}: one weight per option is needed, but got "
            + format_values(n_weights=len(w), n_options=n)
        )
    if any(not math.isfinite(x) or x < 0 for x in w) or sum(w) <= 0:
        raise SpaceError(f"{owner}: weights must be finite, >= 0 and not all 0, but got weights={list(w)!r}")
    return w


class Const(Space):
    """A single value: no decision. ``Const(x)`` builds ``x`` itself (not a copy)."""

    __slots__ = ("value",)
    value: Any

    def __init__(self, value: Any) -> None:
        object.__setattr__(self, "value", value)

    def __repr__(self) -> str:
        return repr(self.value)


class Family(Space):
    """A parameter family ``{A_0, B_1, C_γ}``: positional and keyword members.

    It builds a ``list`` (``kind="list"``) or ``tuple`` when it has only
    positional members, a ``dict`` when only keywords, else an :class:`Args`.
    """

    __slots__ = ("args", "kind", "kwargs")
    args: tuple[Space, ...]
    kwargs: Mapping[str, Space]
    kind: str

    def __init__(
        self,
        args: Sequence[Space] = (),
        kwargs: Mapping[str, Space] | None = None,
        *,
        kind: str = "tuple",
    ) -> None:
        kwargs = kwargs or {}
        for i, a in enumerate(args):
            _require_space(a, f"Family member {i}")
        for k, v in kwargs.items():
            _require_space(v, f"Family member {k!r}")
            check_key(k)
        if kind not in ("tuple", "list"):
            raise SpaceError(f"Family kind must be 'tuple' or 'list', but got kind={kind!r}")
        object.__setattr__(self, "args", tuple(args))
        object.__setattr__(self, "kwargs", dict(kwargs))
        object.__setattr__(self, "kind", kind)

    def children(self) -> tuple[Space, ...]:
        return (*self.args, *self.kwargs.values())

    def members(self) -> Iterator[tuple[str, Space]]:
        """``(index, space)`` pairs: positions as "0", "1", ..., then keywords."""
        for i, a in enumerate(self.args):
            yield str(i), a
        yield from self.kwargs.items()

    def __len__(self) -> int:
        return len(self.args) + len(self.kwargs)

    def __getitem__(self, index: int | str) -> Space:
        return self.project(index)

    def project(self, *indices: int | str) -> Space:
        """The projection π: one index gives that member, several give a sub-family."""
        picked = [self._member(i) for i in indices]
        if len(indices) == 1:
            return picked[0]
        pos = [s for i, s in zip(indices, picked) if isinstance(i, int)]
        kw = {i: s for i, s in zip(indices, picked) if isinstance(i, str)}
        return Family(pos, kw, kind=self.kind)

    def _member(self, index: int | str) -> Space:
        if is_integer(index) and 0 <= index < len(self.args):
            return self.args[index]
        if isinstance(index, str) and index in self.kwargs:
            return self.kwargs[index]
        raise SpaceError(
            "a projection index must name a member of the family, but got "
            + format_values(index=index, positions=len(self.args), keywords=sorted(self.kwargs))
        )

    def rename(self, mapping: Mapping[int | str, str]) -> Family:
        """The rename ρ: ``rename({1: "a"})`` turns member 1 into keyword ``a``;
        the remaining positional members keep their order and stay dense."""
        for old in mapping:
            self._member(old)
        pos = [a for i, a in enumerate(self.args) if i not in mapping]
        kw = {mapping.get(k, k): v for k, v in self.kwargs.items()}
        for i, a in enumerate(self.args):
            if i in mapping:
                _merge_key(kw, mapping[i], a)
        if len(kw) != len(self.kwargs) + sum(isinstance(k, int) for k in mapping):
            raise SpaceError(
                f"rename must not make two members share a keyword, but got mapping={dict(mapping)!r}"
            )
        return Family(pos, kw, kind=self.kind)

    def __repr__(self) -> str:
        if not self.kwargs:
            inner = ", ".join(map(repr, self.args))
            return f"[{inner}]" if self.kind == "list" else f"({inner}{',' if len(self.args) == 1 else ''})"
        if not self.args:
            return "{" + ", ".join(f"{k!r}: {v!r}" for k, v in self.kwargs.items()) + "}"
        return f"Family(({''.join(repr(a) + ', ' for a in self.args)}), {dict(self.kwargs)!r})"


def _require_space(value: object, where: str) -> None:
    if not isinstance(value, Space):
        raise SpaceError(f"{where} must be a space, but got {where}={value!r}")


def check_key(key: object) -> None:
    if not isinstance(key, str) or not key or "." in key or key.startswith("@"):
        raise SpaceError(
            f"a keyword must be a non-empty string without '.' and not starting with '@', but got key={key!r}"
        )


def _merge_key(kw: dict[str, Space], key: str, value: Space) -> None:
    check_key(key)
    if key in kw:
        raise SpaceError(f"keyword {key!r} is present on both sides of a product, but got key={key!r}")
    kw[key] = value


def product(left: Space, right: Space) -> Space:
    """The product of two spaces (the thesis's family product).

    Families concatenate: positions of the right operand shift by the left's
    length, keywords are copied, a keyword on both sides is an error. A
    non-family operand counts as a one-member positional family. A join
    operand distributes: ``A * (B | C) = (A * B) | (A * C)``, so the empty
    join annihilates.
    """
    if isinstance(left, Join):
        return Join(
            **{lab: product(o, right) for lab, o in zip(left.labels, left.options)}, weights=left.weights
        )
    if isinstance(right, Join):
        return Join(
            **{lab: product(left, o) for lab, o in zip(right.labels, right.options)}, weights=right.weights
        )
    lf = left if isinstance(left, Family) else Family((left,))
    rf = right if isinstance(right, Family) else Family((right,))
    kw = dict(lf.kwargs)
    for k, v in rf.kwargs.items():
        _merge_key(kw, k, v)
    return Family((*lf.args, *rf.args), kw, kind=lf.kind)


class Join(Space):
    """``A | B | ...``: one of its options. Options are labelled, and the label of
    the chosen option is the decision a configuration records.

    ``Join(a, b)`` labels its options by op name (for applications), else by
    position; ``Join(svm=..., rf=...)`` names them. Nested joins flatten (their
    labels are kept where they do not collide) and empty joins vanish, which
    leaves the extension unchanged. ``weights`` give the prior probability of each option.
    """

    __slots__ = ("labels", "options", "weights")
    options: tuple[Space, ...]
    labels: tuple[str, ...]
    weights: tuple[float, ...] | None

    def __init__(self, *options: object, weights: Sequence[float] | None = None, **named: object) -> None:
        items: list[tuple[str | None, Space, float]] = []
        w = check_weights("Join", weights, len(options) + len(named))
        w_iter = iter(w if w is not None else [1.0] * (len(options) + len(named)))
        for label, raw in [*((None, o) for o in options), *named.items()]:
            space, weight = as_space(raw), next(w_iter)
            if label is not None:
                check_key(label)
            if isinstance(space, Join) and not space.options:
                continue
            if isinstance(space, Join) and label is None:
                items.extend(_flatten(space, weight, scale=w is not None or space.weights is not None))
            else:
                items.append((label, space, weight))
        labels = _make_labels(items)
        object.__setattr__(self, "options", tuple(s for _, s, _ in items))
        object.__setattr__(self, "labels", labels)
        uniform = all(x == items[0][2] for _, _, x in items)
        object.__setattr__(self, "weights", None if uniform else tuple(x for _, _, x in items))

    def children(self) -> tuple[Space, ...]:
        return self.options

    def index_of(self, label: object) -> int | None:
        """Index of the option with this label, or None."""
        if isinstance(label, str) and label in self.labels:
            return self.labels.index(label)
        return None

    def __call__(self, *args: object, **kwargs: object) -> Join:
        """``(f | g)(A)`` is ``f(A) | g(A)``: application distributes over the join."""
        callables: list[Op | Join] = []
        for lab, o in zip(self.labels, self.options):
            if not isinstance(o, (Op, Join)):
                raise SpaceError(
                    f"only a join of ops can be applied, but option {lab!r} is not an op: option={o!r}"
                )
            callables.append(o)
        applied = {lab: o(*args, **kwargs) for lab, o in zip(self.labels, callables)}
        return Join(**applied, weights=self.weights)

    def __repr__(self) -> str:
        if not self.options:
            return "Join()"
        auto = _make_labels([(None, o, 1.0) for o in self.options])
        if auto == self.labels and self.weights is None:
            return "(" + " | ".join(map(repr, self.options)) + ")"
        parts = [f"{lab}={o!r}" for lab, o in zip(self.labels, self.options)]
        w = "" if self.weights is None else f", weights={list(self.weights)!r}"
        return f"Join({', '.join(parts)}{w})"


def _flatten(join: Join, weight: float, *, scale: bool) -> list[tuple[str | None, Space, float]]:
    """The options of a nested join. With weights on either join, the nested
    options' weights are scaled so the nested join keeps its prior mass
    ``weight``; without any, ``(A | B) | C`` is uniform over A, B, C."""
    inner = join.weights or (1.0,) * len(join.options)
    total = sum(inner) or 1.0
    return [
        (
            None if lab in (_auto_label(o, i), str(i)) else lab,
            o,
            weight * x / total if scale else 1.0,
        )
        for i, (lab, o, x) in enumerate(zip(join.labels, join.options, inner))
    ]


def _auto_label(space: Space, index: int) -> str:
    if isinstance(space, Apply):
        return space.op.name
    if isinstance(space, Op):
        return space.name
    if isinstance(space, Const) and isinstance(space.value, str) and space.value:
        return space.value
    return str(index)


def _make_labels(items: Sequence[tuple[str | None, Space, float]]) -> tuple[str, ...]:
    """Explicit labels, else automatic ones; colliding automatic labels fall back
    to positions. Two explicit equal labels are an error."""
    labels = [lab if lab is not None else _auto_label(s, i) for i, (lab, s, _) in enumerate(items)]
    explicit = [lab for lab, _, _ in items if lab is not None]
    if len(set(explicit)) != len(explicit):
        dup = next(x for i, x in enumerate(explicit) if x in explicit[:i])
        raise SpaceError(f"join option labels must be distinct, but got a repeated label={dup!r}")
    for i, (lab, _, _) in enumerate(items):
        if lab is None and (labels.count(labels[i]) > 1 or labels[i] in explicit):
            labels[i] = str(i)
    if len(set(labels)) != len(labels):
        raise SpaceError(f"join option labels must be distinct, but got labels={labels!r}")
    return tuple(labels)


_NO_IDENTITY = object()


class Op(Space):
    """A callable turned into an operator: ``op(f)(A, k=B)`` is the application
    of ``f`` to the family ``{A_0, B_k}``. As a space by itself, an op builds the
    callable, so ``f | g`` is a space of functions and ``(f | g)(A)`` distributes.

    Algebraic rules the user declares (``commutative``, ``associative``,
    ``idempotent``, an ``identity`` element) let treefarm recognize two
    configurations that build equal expressions (see
    :mod:`treefarm.space.canonical`), so no evaluation is spent twice on one.
    """

    __slots__ = ("associative", "commutative", "func", "idempotent", "identity", "name")
    func: Callable[..., Any]
    name: str
    commutative: bool
    associative: bool
    idempotent: bool
    identity: Any

    def __init__(
        self,
        func: Callable[..., Any],
        *,
        name: str | None = None,
        commutative: bool = False,
        associative: bool = False,
        idempotent: bool = False,
        identity: Any = _NO_IDENTITY,
    ) -> None:
        if not callable(func):
            raise SpaceError(f"op needs a callable, but got func={func!r}")
        for flag, value in (("commutative", commutative), ("associative", associative), ("idempotent", idempotent)):
            check_bool(flag, value, error=SpaceError)
        label = name if name is not None else getattr(func, "__name__", None)
        if not isinstance(label, str) or not label.isidentifier():
            raise SpaceError(
                f"an op needs a name that is an identifier (pass name=...), but got name={label!r}"
            )
        object.__setattr__(self, "func", func)
        object.__setattr__(self, "name", label)
        object.__setattr__(self, "commutative", bool(commutative))
        object.__setattr__(self, "associative", bool(associative))
        object.__setattr__(self, "idempotent", bool(idempotent))
        object.__setattr__(self, "identity", identity)

    @property
    def has_rules(self) -> bool:
        """Whether any algebraic rule was declared."""
        rules = (self.commutative, self.associative, self.idempotent)
        return any(rules) or self.identity is not _NO_IDENTITY

    @property
    def has_identity(self) -> bool:
        return self.identity is not _NO_IDENTITY

    def __call__(self, *args: object, **kwargs: object) -> Apply:
        members = {k: as_space(v) for k, v in kwargs.items()}
        return Apply(self, Family(tuple(as_space(a) for a in args), members))

    def __repr__(self) -> str:
        return self.name


def op(
    func: Callable[..., Any],
    *,
    name: str | None = None,
    commutative: bool = False,
    associative: bool = False,
    idempotent: bool = False,
    identity: Any = _NO_IDENTITY,
) -> Op:
    """Turn a callable into an operator on spaces: ``add = op(operator.add,
    commutative=True, associative=True, identity=0)``."""
    return Op(
        func,
        name=name,
        commutative=commutative,
        associative=associative,
        idempotent=idempotent,
        identity=identity,
    )


class Apply(Space):
    """The application ``f(args)`` of an op to a family; builds ``f(*args, **kwargs)``."""

    __slots__ = ("args", "op")
    op: Op
    args: Family

    def __init__(self, op: Op, args: Family) -> None:
        if not isinstance(op, Op):
            raise SpaceError(f"Apply needs an Op, but got op={op!r}")
        _require_space(args, "Apply args")
        if not isinstance(args, Family):
            raise SpaceError(f"Apply args must be a Family, but got args={args!r}")
        object.__setattr__(self, "op", op)
        object.__setattr__(self, "args", args)

    def children(self) -> tuple[Space, ...]:
        return (self.args,)

    def __repr__(self) -> str:
        parts = [*map(repr, self.args.args), *(f"{k}={v!r}" for k, v in self.args.kwargs.items())]
        return f"{self.op.name}({', '.join(parts)})"

class Shared(Space):
    """A sub-space drawn once per instance and reused wherever it appears (the
    thesis's constants): every occurrence of ``Shared(space, key="w")`` in one
    instance builds the same object. Its decisions live under ``@key``."""

    __slots__ = ("key", "space")
    space: Space
    key: str

    def __init__(self, space: object, *, key: str) -> None:
        check_key(key)
        object.__setattr__(self, "space", as_space(space))
        object.__setattr__(self, "key", key)

    def children(self) -> tuple[Space, ...]:
        return (self.space,)

    def __repr__(self) -> str:
        return f"Shared({self.space!r}, key={self.key!r})"

