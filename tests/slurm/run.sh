#!/usr/bin/env bash
# The Slurm recipe on a real Slurm: starts munged, slurmctld and slurmd for
# one node (this host, as root, everything in a temporary folder), submits
# docs/recipes/slurm-array.sh as its header says and slurm-merge.sh with
# --dependency=afterok on the array, requeues the running task mid-shard
# (`scontrol requeue`), waits (bounded) and checks:
#   - every task and the merge completed; the requeued task ran twice
#     (Restarts=1) and resumed its shard: the file it had committed was not
#     elaborated again;
#   - the merged session has the same declaration rows as one unsharded
#     capture of the project, and the viewer site was published.
# It stops the daemons it started, by process id, whatever happens (trap).
#
#   tests/slurm/run.sh      (root; Debian slurm-wlm and munge: scripts/setup;
#                            target/debug/leanscope and fake-lean built)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
target=${CARGO_TARGET_DIR:-$repo/target}/debug
limit=${LEANSCOPE_SLURM_TIMEOUT:-240}

fail() {
  echo "slurm test: [${SECONDS}s] FAIL: $*" >&2
  exit 1
}
for tool in munged slurmctld slurmd sbatch scontrol squeue; do
  command -v "$tool" >/dev/null || fail "$tool is missing (scripts/setup installs slurm-wlm and munge)"
done
[ "$(id -u)" = 0 ] || fail "run as root (slurmd runs jobs as their user)"
for bin in leanscope fake-lean; do
  [ -x "$target/$bin" ] || fail "$target/$bin is missing (cargo build -p leanscope -p fake-toolchain)"
done

work=$(mktemp -d /tmp/leanscope-slurm.XXXXXX)
chmod 755 "$work"
pids=()
stop_daemons() {
  local code=$?
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    # Wait (bounded) until each is gone.
    for _ in $(seq 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
  done
  if [ "$code" != 0 ]; then
    for log in "$work"/*.log "$work"/jobs/slurm-*.out; do
      [ -f "$log" ] && { echo "--- $log"; tail -n 30 "$log"; }
    done
  fi
  [ -n "${LEANSCOPE_SLURM_KEEP:-}" ] || rm -rf "$work"
  exit "$code"
}
trap stop_daemons EXIT

# The toolchain (the fake lake and lean) and leanscope, on PATH for the jobs
# (sbatch exports the submitting environment).
mkdir -p "$work/toolchain/bin" "$work/bin"
ln -s "$target/fake-lean" "$work/toolchain/bin/lake"
ln -s "$target/fake-lean" "$work/toolchain/bin/lean"
ln -s "$target/leanscope" "$work/bin/leanscope"
export PATH="$work/bin:$work/toolchain/bin:/usr/sbin:/usr/bin:/sbin:/bin"
export LEANSCOPE_FAKE_FIXTURES="$repo/fixtures/lean-output"
export HOME="$work"

# A project of 8 files, two declarations each, in 4 shards of 2 (source
# sizes differ, so the cut is by size). Every file notes each run of it in
# runs.log (the fake's run-log directive) and costs 0.9 s.
project="$work/project"
mkdir -p "$project/Demo"
printf 'name = "demo"\ndefaultTargets = ["Demo"]\n\n[[lean_lib]]\nname = "Demo"\n' >"$project/lakefile.toml"
echo 'leanprover/lean4:v4.31.0' >"$project/lean-toolchain"
for i in 1 2 3 4 5 6 7 8; do
  {
    echo "-- leanscope-fake: run-log $work/runs.log"
    echo "theorem t$i : True := by"
    echo "  trivial -- leanscope-fake: cost 600ms"
    echo
    echo "def d$i := $i -- leanscope-fake: cost 300ms"
    printf -- '-- %*s\n' $((i * 40)) padding
  } >"$project/Demo/F$i.lean"
done

# One unsharded capture, the reference.
leanscope profile --project "$project" -o "$work/unsharded" >"$work/unsharded.log" 2>&1 \
  || fail "the unsharded capture failed: $(tail -n 5 "$work/unsharded.log")"
: >"$work/runs.log"

# munge and Slurm for one node, this host, on ports of their own.
mkdir -p "$work/munge" "$work/state" "$work/spool" "$work/jobs" "$work/sessions"
chmod 700 "$work/munge"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge/munge.key"
munged --foreground --force --socket="$work/munge/socket" --key-file="$work/munge/munge.key" \
  --pid-file="$work/munge/munged.pid" --log-file="$work/munged.log" \
  --seed-file="$work/munge/seed" >"$work/munged.out.log" 2>&1 &
pids+=($!)

host=$(hostname -s)
cpus=2
cat >"$work/slurm.conf" <<EOF
ClusterName=leanscope-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
# cred_expire: how long a requeued job waits before it starts again (120 s
# by default), the lifetime of a job's credential.
AuthInfo=socket=$work/munge/socket,cred_expire=10
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
SlurmdParameters=config_overrides
SchedulerParameters=defer_batch
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$work/slurm.conf"
for _ in $(seq 50); do
  [ -S "$work/munge/socket" ] && break
  sleep 0.1
done
[ -S "$work/munge/socket" ] || fail "munged did not start"
slurmctld -D -c -f "$SLURM_CONF" >"$work/slurmctld.out.log" 2>&1 &
pids+=($!)
slurmd -D -N "$host" -f "$SLURM_CONF" >"$work/slurmd.out.log" 2>&1 &
pids+=($!)

deadline=$((SECONDS + limit))
until sinfo -h -N -o '%T' 2>/dev/null | grep -qx idle; do
  [ $SECONDS -lt $deadline ] || fail "the node never became idle: $(sinfo -N 2>&1)"
  sleep 0.5
done

# Submitted as the recipe's header says, from a folder for the job logs.
cd "$work/jobs"
array=$(sbatch --parsable "$repo/docs/recipes/slurm-array.sh" "$project" "$work/sessions")
merge=$(sbatch --parsable --dependency="afterok:$array" "$repo/docs/recipes/slurm-merge.sh" "$work/sessions")
echo "slurm test: [${SECONDS}s] array job $array, merge job $merge"

# Requeue the first running task once it has committed one file and is
# elaborating its second (two runs noted in runs.log).
until [ "$(wc -l <"$work/runs.log")" -ge 2 ]; do
  [ $SECONDS -lt $deadline ] || fail "no task started its second file"
  sleep 0.1
done
running=$(squeue -h -t R -j "$array" -o '%i' | head -n 1)
[ -n "$running" ] || fail "no task of $array is running"
task=${running#*_}
shard_dir="$work/sessions/shard-$task"
[ -f "$shard_dir/session.json" ] || fail "task $task has no shard session yet"
first_file=$(head -n 1 "$work/runs.log")
sleep 0.2
scontrol requeue "$running"
echo "slurm test: [${SECONDS}s] requeued $running while it captured $(tail -n 1 "$work/runs.log")"

until [ -z "$(squeue -h -j "$array,$merge" -o '%i' 2>/dev/null)" ]; do
  [ $SECONDS -lt $deadline ] || fail "jobs still queued after ${limit}s: $(squeue 2>&1)"
  sleep 1
done

# Every task and the merge completed.
for job in "$array" "$merge"; do
  states=$(scontrol -o show job "$job" | grep -o 'JobState=[A-Z_]*' | sort -u)
  [ "$states" = "JobState=COMPLETED" ] || fail "job $job: $states"
done
restarts=$(scontrol -o show job "$running" | grep -o 'Restarts=[0-9]*')
[ "$restarts" = "Restarts=1" ] || fail "task $running: $restarts, expected one requeue"

# The requeued task resumed: the file it had committed before the requeue
# ran once; 8 files plus the one whose capture the requeue cut short.
[ "$(grep -cx "$first_file" "$work/runs.log")" = 1 ] \
  || fail "$first_file was elaborated again: the requeued task did not resume its shard"
runs=$(wc -l <"$work/runs.log")
[ "$runs" = 9 ] || fail "$runs runs of Lean, expected 9 (8 files, one cut short by the requeue)"
[ "$(sort -u "$work/runs.log" | wc -l)" = 8 ] || fail "not every file was captured"

# The merged session against the unsharded capture: the same rows.
rows() {
  leanscope query "$1" --kind declaration --all --jsonl \
    | python3 -c 'import json,sys; [print(r["file"], r["path"], r["name"], r["line"], r["endLine"]) for r in map(json.loads, sys.stdin) if r.get("kind") == "declaration"]' \
    | sort
}
rows "$work/unsharded" >"$work/unsharded.rows"
rows "$work/sessions/merged" >"$work/merged.rows"
[ "$(wc -l <"$work/unsharded.rows")" = 16 ] || fail "the unsharded capture has $(wc -l <"$work/unsharded.rows") declaration rows, expected 16"
diff -u "$work/unsharded.rows" "$work/merged.rows" || fail "the merged session's declaration rows differ from the unsharded capture's"
[ -f "$work/sessions/site/index.html" ] || fail "slurm-merge.sh published no site"
echo "slurm test: [${SECONDS}s] ok (4 array tasks, one requeued and resumed, merged = unsharded: 16 declaration rows, site published)"
