#!/usr/bin/env bash
# The profile step with `measure: heartbeats`: per-declaration heartbeats of
# base and head from the `.hb.json` files Lean writes beside every `.olean`
# during `lake build`, compared exactly. For each side, either the given
# build (base-build / head-build: a folder holding a built Lake project) or a
# `git worktree` of the commit under RUNNER_TEMP built with `lake build`
# (bounded by timeout-build); then `leanscope profile --project DIR
# --from-build` makes its session and `leanscope compare --summary
# --outputs` writes the job summary and the outputs (state, regressions,
# report). This script parses no JSON; it writes the summary itself only
# when no comparison can be made (no revision, a failed or timed-out build,
# a build without `.hb.json`), quoting what failed. Adds the outputs
# `workspace` and `exit-code`, and never fails, so that the artifact is
# uploaded and the verdict step decides.
set -euo pipefail

repo="$GITHUB_WORKSPACE/${INPUT_PATH:-.}"

# shellcheck source=new-workspace.sh
. "$(dirname "$0")/new-workspace.sh"
ws=$(new_workspace leanscope-heartbeats)
mkdir -p "$ws/profiles" "$ws/logs"

# Says why nothing was compared: the summary (a heading, the reason, and
# leanscope's or lake's own words from $3 when given, fenced), the outputs.
stop() {
  local state=$1 reason=$2 detail=${3:-}
  {
    echo "## leanscope: heartbeats not compared"
    echo
    echo "**$reason**"
    echo
    if [ -n "$detail" ] && [ -s "$detail" ]; then
      echo '```text'
      tail -n 40 "$detail" | sed 's/```/` ` `/g'
      echo '```'
      echo
    fi
    echo "No comparison was made."
  } | tee "$ws/report.md" >>"$GITHUB_STEP_SUMMARY"
  printf 'state=%s\nregressions=0\nreport=\nworkspace=%s\nexit-code=2\n' "$state" "$ws" >>"$GITHUB_OUTPUT"
  echo "::error::leanscope: $reason"
  exit 0
}

for flag in "flag-heartbeats-increase=${INPUT_FLAG_HEARTBEATS_INCREASE:-}" "flag-heartbeats-bps=${INPUT_FLAG_HEARTBEATS_BPS:-}"; do
  case "${flag#*=}" in
    '' | *[!0-9]*) stop not_run "The ${flag%%=*} input is '${flag#*=}'; give a whole number (0 flags any increase)." ;;
  esac
done

need_git=false
[ -z "${INPUT_BASE_BUILD:-}" ] && need_git=true
[ -z "${INPUT_HEAD_BUILD:-}" ] && need_git=true
base_commit=
head_commit=
if $need_git; then
  if [ -z "${INPUT_BASE:-}" ] || [ -z "${INPUT_HEAD:-}" ]; then
    stop not_run "No base or head revision: run on a pull_request event, or give the base and head inputs (or base-build and head-build)."
  fi
  if ! head_commit=$(git -C "$repo" rev-parse --verify --quiet "$INPUT_HEAD^{commit}"); then
    stop not_run "The head revision $INPUT_HEAD is not a commit of $repo (check out the history: fetch-depth 0)."
  fi
  if ! base_commit=$(git -C "$repo" merge-base "$INPUT_BASE" "$head_commit" 2>"$ws/logs/merge-base.err"); then
    stop not_run "No merge base of $INPUT_BASE and the head in $repo (check out the history: fetch-depth 0)." "$ws/logs/merge-base.err"
  fi
fi

# The build folder of a side, in $built: the given one, else a worktree of
# its commit built with `lake build`.
built=
build_side() {
  local side=$1 commit=$2 given=$3
  if [ -n "$given" ]; then
    if [ ! -d "$given" ]; then
      stop error "The $side-build input names $given, which is not a folder."
    fi
    built=$(cd "$given" && pwd)
    return
  fi
  local wt="$RUNNER_TEMP/leanscope-heartbeats-$side-${commit:0:12}"
  if [ ! -d "$wt" ]; then
    git -C "$repo" worktree add --quiet --detach "$wt" "$commit" >"$ws/logs/worktree-$side.log" 2>&1 \
      || stop error "Cannot make a worktree of the $side commit ${commit:0:7}." "$ws/logs/worktree-$side.log"
  fi
  local project="$wt"
  if [ "${INPUT_PATH:-.}" != . ]; then
    project="$wt/$INPUT_PATH"
  fi
  # The checkout's prepared dependencies (Mathlib's cache), when the side
  # pins the same ones: linked, not fetched and built again.
  if [ -d "$repo/.lake/packages" ] && [ ! -e "$project/.lake/packages" ] \
    && cmp -s "$repo/lake-manifest.json" "$project/lake-manifest.json"; then
    mkdir -p "$project/.lake"
    ln -s "$repo/.lake/packages" "$project/.lake/packages"
  fi
  echo "lake build of $side (${commit:0:7}) in $project, at most $INPUT_TIMEOUT_BUILD s"
  local code=0
  (cd "$project" && timeout --kill-after=10 "$INPUT_TIMEOUT_BUILD" lake build) >"$ws/logs/build-$side.log" 2>&1 || code=$?
  if [ "$code" = 124 ] || [ "$code" = 137 ]; then
    stop error "The build of $side (${commit:0:7}, lake build) did not finish within $INPUT_TIMEOUT_BUILD s (timeout-build)." "$ws/logs/build-$side.log"
  elif [ "$code" = 127 ]; then
    stop not_run "No lake on PATH for the build of $side: install the Lean toolchain (elan) before the action." "$ws/logs/build-$side.log"
  elif [ "$code" != 0 ]; then
    stop error "The build of $side (${commit:0:7}, lake build) failed (exit $code)." "$ws/logs/build-$side.log"
  fi
  built=$project
}

# The session of a side from its build's `.hb.json` files.
session_of() {
  local side=$1 dir=$2
  if "$LEANSCOPE" profile --project "$dir" --from-build -o "$ws/profiles/$side" \
    >"$ws/logs/from-build-$side.log" 2>&1; then
    return
  fi
  # No `.hb.json` at all: a toolchain older than the feature, not a failure.
  if [ -z "$(find "$dir/.lake/build/lib/lean" -name '*.hb.json' -print -quit 2>/dev/null)" ]; then
    stop not_run "The $side build has no .hb.json file, so it has no heartbeats to compare: its Lean predates them (leanscope's words below name the Lean that writes them)." "$ws/logs/from-build-$side.log"
  fi
  stop error "leanscope could not read the $side build's heartbeats." "$ws/logs/from-build-$side.log"
}

label() {
  local side=$1 commit=$2 given=$3
  if [ -n "$given" ]; then
    echo "$side (the build in $given)"
  else
    echo "$side ${commit:0:7}"
  fi
}

build_side base "$base_commit" "${INPUT_BASE_BUILD:-}"
base_dir=$built
build_side head "$head_commit" "${INPUT_HEAD_BUILD:-}"
head_dir=$built
session_of base "$base_dir"
session_of head "$head_dir"

code=0
"$LEANSCOPE" compare "$ws/profiles/base" "$ws/profiles/head" \
  --absolute-tolerance "$INPUT_FLAG_HEARTBEATS_INCREASE" \
  --relative-tolerance-bps "$INPUT_FLAG_HEARTBEATS_BPS" \
  --json "$ws/comparison.json" \
  --baseline-label "$(label base "$base_commit" "${INPUT_BASE_BUILD:-}")" \
  --candidate-label "$(label head "$head_commit" "${INPUT_HEAD_BUILD:-}")" \
  --summary "$ws/report.md" --outputs "$GITHUB_OUTPUT" 2>"$ws/logs/compare.err" || code=$?
if [ ! -s "$ws/report.md" ]; then
  # leanscope stopped before it could say anything (a bad argument).
  stop error "leanscope compare failed (exit $code)." "$ws/logs/compare.err"
fi
cat "$ws/logs/compare.err" >&2
cat "$ws/report.md" >>"$GITHUB_STEP_SUMMARY"
printf 'workspace=%s\nexit-code=%s\n' "$ws" "$code" >>"$GITHUB_OUTPUT"
