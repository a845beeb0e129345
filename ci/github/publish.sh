#!/usr/bin/env bash
# The action's third step: publish the viewer (`leanscope publish`, the head
# session with the base as its baseline: the Diff tab) and list what the
# artifact holds (output `files`, one path a line): the reports, both
# sessions, the site and raw/ (each sample's counters, output and recording:
# what `revisions merge` of a shard needs); with measure heartbeats,
# comparison.json and logs/ (each build's and session's log). Not the two
# source trees.
set -euo pipefail

if [ -z "${WORKSPACE:-}" ]; then
  echo "files=" >>"$GITHUB_OUTPUT"
  exit 0
fi
files=()
for f in report.json report.md plan.json raw comparison.json logs; do
  [ -e "$WORKSPACE/$f" ] && files+=("$WORKSPACE/$f")
done
if [ -d "$WORKSPACE/profiles/head" ] && [ -d "$WORKSPACE/profiles/base" ]; then
  files+=("$WORKSPACE/profiles")
  # A side without files (a change that only adds, or only removes, files)
  # cannot be a baseline: then the head alone, else no site.
  if "$LEANSCOPE" publish "$WORKSPACE/profiles/head" --baseline "$WORKSPACE/profiles/base" \
    -o "$WORKSPACE/site" \
    || "$LEANSCOPE" publish "$WORKSPACE/profiles/head" -o "$WORKSPACE/site"; then
    files+=("$WORKSPACE/site")
  else
    echo "::warning::leanscope published no viewer site (see the log above)"
  fi
fi
{
  echo "files<<LEANSCOPE_FILES_END"
  printf '%s\n' "${files[@]}"
  echo "LEANSCOPE_FILES_END"
} >>"$GITHUB_OUTPUT"
