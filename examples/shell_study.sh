#!/usr/bin/env bash
# Drive a treefarm study from a shell loop around a program that is not Python.
#
#   bash examples/shell_study.sh [STORAGE]          (default storage: shell.db)
#
# The "simulator" here is awk computing the Branin function (its minimum is
# about 0.398), made worse by a fast solver and failing now and then, as real
# programs do; put your own program's command line in its place. Run the script
# in several shells at once on one storage: each `ask` claims a distinct trial and
# the study stops at its budget (N_TRIALS, default 20) between them all.
# TREEFARM is the command (default: treefarm; e.g. "python -m treefarm.cli.main").
set -euo pipefail

storage=${1:-shell.db}
study=${STUDY:-shell}
here=$(cd "$(dirname "$0")" && pwd)
read -r -a treefarm <<<"${TREEFARM:-treefarm}"

"${treefarm[@]}" create "$storage" --study "$study" --space "$here/shell_space.json" \
    --n-trials "${N_TRIALS:-20}" --seed 0 --skip-if-exists >/dev/null

simulate() {  # x y solver steps -> the loss on standard output, or a non-zero status
    awk -v x="$1" -v y="$2" -v solver="$3" -v steps="$4" 'BEGIN {
        pi = 3.141592653589793
        b = 5.1 / (4 * pi * pi); c = 5 / pi; t = 1 / (8 * pi)
        loss = (y - b * x * x + c * x - 6) ^ 2 + 10 * (1 - t) * cos(x) + 10
        if (solver == "fast") loss += 2
        else if (steps < 2) exit 1            # too few steps: the solver gives up
        else loss += 1 / steps
        printf "%.10g\n", loss
    }'
}

while true; do
    answer=$("${treefarm[@]}" ask "$storage" --study "$study") || {
        status=$?
        [ "$status" -eq 3 ] && break          # 3: the study's budget is spent
        exit "$status"
    }
    trial=$(head -n 1 <<<"$answer")
    get() { awk -v key="$1" '$1 == key { print $2 }' <<<"$answer"; }
    if loss=$(simulate "$(get x)" "$(get y)" "$(get solver)" "$(get solver.careful.steps)"); then
        "${treefarm[@]}" tell "$storage" --study "$study" --trial "$trial" --value "$loss" >/dev/null
    else
        "${treefarm[@]}" tell "$storage" --study "$study" --trial "$trial" --failed "the solver gave up" >/dev/null
    fi
done
"${treefarm[@]}" show "$storage" --study "$study" --last 5
