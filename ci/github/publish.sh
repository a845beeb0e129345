#!/usr/bin/env bash
# The action's third step: publish the viewer (`leanscope publish`, the head
# session with the base as its baseline: the Diff tab) and list what the
# artifact holds (output `files`, one path a line): the reports, both
# sessions, the site. Not the two source trees, nor raw/ beyond the reports.
set -euo pipefail

if [ -z "${WORKSPACE:-}" ]; then
  echo "files=" >>"$GITHUB_OUTPUT"
  exit 0
fi
files=()
for f in report.json report.md plan.json; do
  [ -f "$WORKSPACE/$f" ] && files+=("$WORKSPACE/$f")
done
if [ -d "$WORKSPACE/profiles/head" ] && [ -d "$WORKSPACE/profiles/base" ]; then
  "$LEANSCOPE" publish "$WORKSPACE/profiles/head" --baseline "$WORKSPACE/profiles/base" \
    -o "$WORKSPACE/site"
  files+=("$WORKSPACE/profiles" "$WORKSPACE/site")
fi
{
  echo "files<<LEANSCOPE_FILES_END"
  printf '%s\n' "${files[@]}"
  echo "LEANSCOPE_FILES_END"
} >>"$GITHUB_OUTPUT"
