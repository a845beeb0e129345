#!/usr/bin/env bash
# A radar bench script (leanprover/radar's "bench repo specification"): radar runs it with the
# repository's clone and an output file, and reads JSON lines {"metric","value","unit"} from
# that file. This one builds the project with Lake and reports every module's and every
# declaration's heartbeats from the .hb.json files Lean wrote beside the .olean files (a Lean
# after v4.35.0), exactly and with no Lean run of its own:
#   leanscope/file/PATH//heartbeats, leanscope/decl/PATH/NAME//heartbeats  (unit "heartbeats")
# Needs `lake` and `leanscope` on PATH.
set -euo pipefail
repo=${1:?usage: radar-bench.sh REPO OUT}
out=${2:?usage: radar-bench.sh REPO OUT}
session=$(mktemp -d)/session
(cd "$repo" && lake build)
leanscope profile --project "$repo" --from-build -o "$session"
leanscope export "$session" --format radar -o "$out"
rm -rf "$(dirname "$session")"
