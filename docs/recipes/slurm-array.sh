#!/bin/bash
# leanscope: a sharded capture as a Slurm job array, then the merge.
#
#   jobid=$(sbatch --parsable slurm-array.sh /path/to/project /shared/sessions)
#   sbatch --dependency=afterany:$jobid slurm-merge.sh /shared/sessions
#
# The project's dependencies must be built first (`lake exe cache get` or
# `lake build` in it, once, on a shared file system); elan and leanscope must
# be on PATH on every node. Each task captures one shard: --shard auto reads
# SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN and SLURM_ARRAY_TASK_COUNT.
# A requeued task resumes its shard. See docs/distributed-capture.md.
#SBATCH --job-name=leanscope-profile
#SBATCH --array=0-3
#SBATCH --cpus-per-task=2
#SBATCH --time=06:00:00
set -euo pipefail
project=${1:?give the project directory}
sessions=${2:?give the sessions directory}
out="$sessions/shard-$SLURM_ARRAY_TASK_ID"
code=0
if [ -f "$out/session.json" ]; then
  leanscope profile --resume "$out" || code=$?
else
  leanscope profile --project "$project" --shard auto -o "$out" || code=$?
fi
# 1: some files have Lean errors; 3: some files failed. Both keep a session.
case $code in 0|1|3) exit 0 ;; *) exit "$code" ;; esac
