#!/bin/bash
# leanscope: merge the shards slurm-array.sh captured and publish the viewer.
#   sbatch --dependency=afterany:$jobid slurm-merge.sh /shared/sessions
#SBATCH --job-name=leanscope-merge
#SBATCH --time=00:30:00
set -euo pipefail
sessions=${1:?give the sessions directory}
code=0
leanscope session merge "$sessions"/shard-* -o "$sessions/merged" || code=$?
# 3: a shard is missing or a file failed; the merged session is partial.
case $code in 0|3) ;; *) exit "$code" ;; esac
leanscope publish "$sessions/merged" -o "$sessions/site"
