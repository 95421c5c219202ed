#!/usr/bin/env bash
# Three `treefarm worker` processes on one PostgreSQL cluster that crashes
# (`pg_ctl -m immediate stop`) six times under them, 2 s down each time; then
# the study is checked: every trial complete, numbers distinct, none without
# its configuration (random search: the storage is what is tested), and each
# worker's exit code. Run as root beside a throwaway cluster of your own:
#   PGDATA=/tmp/advpg/data PORT=55433 DB=adv bash bench/pg_crash.sh
set -euo pipefail
: "${PGDATA:?the data folder of a throwaway cluster}" "${PORT:?its port}" "${DB:?a database in it}"
BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
WORK=$(mktemp -d)
URL="postgresql+psycopg://postgres@127.0.0.1:$PORT/$DB"
STUDY="crash$(date +%s)"
cat > "$WORK/objective.py" <<'PY'
import time
import treefarm as tf
space = {"x": tf.Real(-1.0, 1.0)}
def objective(p):
    time.sleep(0.02)
    return p["x"] ** 2
PY
cd "$WORK"
pids=()
for i in 1 2 3; do
  treefarm worker "$URL" --study "$STUDY" --file objective.py --n-trials 600 --algo random --retry-deadline 120 > "worker$i.log" 2>&1 &
  pids+=($!)
done
for _ in 1 2 3 4 5 6; do
  sleep $((RANDOM % 4 + 2))
  su postgres -c "cd / && $BIN/pg_ctl -D $PGDATA -m immediate stop" > /dev/null
  sleep 2
  su postgres -c "cd / && $BIN/pg_ctl -D $PGDATA -l $PGDATA/../log -w -o '-p $PORT -h 127.0.0.1 -k $PGDATA/..' start" > /dev/null
done
for pid in "${pids[@]}"; do
  code=0
  wait "$pid" || code=$?
  echo "worker $pid exited $code"
done
python - "$URL" "$STUDY" <<'PY'
import sys
from collections import Counter
from treefarm.storage import open_storage
storage = open_storage(sys.argv[1], journal=None)
trials = storage.get_trials(storage.get_study(sys.argv[2]).study_id)
print(f"{len(trials)} trials, states {dict(Counter(t.state.value for t in trials))}, "
      f"{len({t.number for t in trials})} distinct numbers, {sum(not t.params for t in trials)} without params")
PY
grep -h "lost before" worker*.log || true
