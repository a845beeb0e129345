#!/usr/bin/env bash
# The action's last step: with fail-on-regression, fail the job when a file
# is flagged or when nothing could be measured; otherwise the report is
# advisory and the job passes.
set -euo pipefail

case "${INPUT_FAIL_ON_REGRESSION:-false}" in
  true) ;;
  false)
    echo "leanscope: ${REGRESSIONS:-0} regressions ($STATE); advisory, the job passes"
    exit 0
    ;;
  *)
    echo "::error::fail-on-regression is '$INPUT_FAIL_ON_REGRESSION'; give true or false"
    exit 1
    ;;
esac
case "$STATE" in
  complete | no_changes)
    if [ "${REGRESSIONS:-0}" -gt 0 ]; then
      echo "::error::leanscope flagged $REGRESSIONS files as regressions (see the job summary)"
      exit 1
    fi
    echo "leanscope: no regression"
    ;;
  *)
    echo "::error::leanscope measured nothing ($STATE; see the job summary)"
    exit 1
    ;;
esac
