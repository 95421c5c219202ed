"""A diagnosis of ``auto``'s parts on a space of binary choices (max cut), one part swapped at a time.

Variants (rows named ``tf-`` + the variant, beside the suite's ``treefarm-auto``):

- ``gp-alone``: ``auto``'s GP (one length scale per choice) without TPE's turns;
- ``auto-start10``: a space-filling start of 10 rather than 20 (``GP(n_startup=10)``);
- ``auto-wide``: 2,048 candidates and 32 climbs (``n_candidates``, ``n_starts``);
- ``auto-noexplore``: no Thompson explores while stalled (``explore_stalls=False``);
- ``auto-standard``: the losses standardized, never warped (``output="standard"``);
- ``auto-deterministic``: a noiseless model (``deterministic=True``).

    python -m bench.screens.choice_parts run --problems maxcut30 --seeds 6 \\
        --methods tf-gp-alone,tf-auto-start10,tf-auto-wide,tf-auto-noexplore,tf-auto-standard,tf-auto-deterministic \\
        --rows bench/results/choice_parts_maxcut.jsonl

``maxcut30`` is spent for judging a change it would motivate (bench/notes/choices.md): these rows
diagnose, they choose nothing.
"""

from __future__ import annotations

from collections.abc import Callable

from ..suites import categorical


def _auto_with(**gp: object) -> Callable[[], object]:
    def make() -> object:
        from treefarm.optimizers import GP, Auto

        return Auto(gp=GP(choice_scales="auto", **gp))  # type: ignore[arg-type]

    return make


def _auto_tuned(**tuned: object) -> Callable[[], object]:
    def make() -> object:
        from treefarm.optimizers import GP, Auto
        from treefarm.optimizers.base import variant

        return Auto(gp=variant(GP, tuned, choice_scales="auto"))

    return make


def _gp_alone() -> object:
    from treefarm.optimizers import GP

    return GP(choice_scales="auto")


VARIANTS: dict[str, Callable[[], object]] = {
    "tf-gp-alone": _gp_alone,
    "tf-auto-start10": _auto_with(n_startup=10),
    "tf-auto-wide": _auto_with(n_candidates=2048, n_starts=32),
    "tf-auto-noexplore": _auto_tuned(explore_stalls=False),
    "tf-auto-standard": _auto_tuned(output="standard"),
    "tf-auto-deterministic": _auto_with(deterministic=True),
}


def main(argv: list[str] | None = None) -> None:
    categorical.main_with(VARIANTS, argv)


if __name__ == "__main__":
    main()
