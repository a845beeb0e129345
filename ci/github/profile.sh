#!/usr/bin/env bash
# The action's second step: `leanscope revisions run --profile` of the pull
# request's base against its head, in a new workspace under RUNNER_TEMP
# (with shard-count over 1, of one shard of the changed files), or, with
# merge-from, `leanscope revisions merge` of the shards' workspaces. With
# measure heartbeats, heartbeats.sh instead.
# leanscope itself appends the job summary ($GITHUB_STEP_SUMMARY) and the
# outputs state, regressions, report ($GITHUB_OUTPUT) whatever the outcome;
# this step adds `workspace` and `exit-code` and never fails, so that the
# artifact is uploaded and the verdict step decides.
set -euo pipefail

repo="$GITHUB_WORKSPACE/${INPUT_PATH:-.}"

not_run() {
  {
    echo "## leanscope: not measured"
    echo
    echo "**leanscope could not measure this change:** $1."
  } >>"$GITHUB_STEP_SUMMARY"
  printf 'state=not_run\nregressions=0\nreport=\nworkspace=\nexit-code=2\n' >>"$GITHUB_OUTPUT"
  echo "::error::$1"
  exit 0
}

case "${INPUT_MEASURE:-time}" in
  time) ;;
  heartbeats) exec "$GITHUB_ACTION_PATH/ci/github/heartbeats.sh" ;;
  *) not_run "the measure input is '$INPUT_MEASURE'; give time or heartbeats" ;;
esac

if [ -z "${INPUT_MERGE_FROM:-}" ] && { [ -z "${INPUT_BASE:-}" ] || [ -z "${INPUT_HEAD:-}" ]; }; then
  not_run "no base or head revision: run on a pull_request event, or give the base and head inputs"
fi

# A new folder for each run of the action in this job.
# shellcheck source=new-workspace.sh
. "$(dirname "$0")/new-workspace.sh"
ws=$(new_workspace leanscope-revisions)

ci=(--summary "$GITHUB_STEP_SUMMARY" --outputs "$GITHUB_OUTPUT")
code=0
if [ -n "${INPUT_MERGE_FROM:-}" ]; then
  # One folder per shard's artifact, each holding its report.json.
  shards=()
  for report in "$INPUT_MERGE_FROM"/*/report.json; do
    [ -f "$report" ] && shards+=("$(dirname "$report")")
  done
  if [ ${#shards[@]} -eq 0 ]; then
    shards=("$INPUT_MERGE_FROM") # leanscope says what is wrong with it
  fi
  "$LEANSCOPE" revisions merge "${shards[@]}" --workspace "$ws" "${ci[@]}" || code=$?
else
  shard=()
  if [ "${INPUT_SHARD_COUNT:-1}" != 1 ]; then
    shard=(--shard "$INPUT_SHARD_INDEX/$INPUT_SHARD_COUNT")
  fi
  "$LEANSCOPE" revisions run --repo "$repo" --base "$INPUT_BASE" --head "$INPUT_HEAD" \
    --workspace "$ws" --profile --repeat "$INPUT_REPEAT" \
    --flag-ratio "$INPUT_FLAG_RATIO" --flag-min-increase-ms "$INPUT_FLAG_MIN_INCREASE_MS" \
    --flag-added-ms "$INPUT_FLAG_ADDED_MS" \
    --timeout-file "$INPUT_TIMEOUT_FILE" --timeout-build "$INPUT_TIMEOUT_BUILD" \
    "${shard[@]}" "${ci[@]}" || code=$?
fi

if [ -d "$ws" ]; then
  echo "workspace=$ws" >>"$GITHUB_OUTPUT"
else
  echo "workspace=" >>"$GITHUB_OUTPUT"
fi
echo "exit-code=$code" >>"$GITHUB_OUTPUT"
