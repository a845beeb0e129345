#!/usr/bin/env bash
# The action's first step: find leanscope (the `leanscope` input, else PATH,
# else build it from the action's own source with cargo) and check the host
# tools `revisions run` needs (git, GNU time, bubblewrap; git alone with
# measure heartbeats). Output: leanscope.
set -euo pipefail

bin=${INPUT_LEANSCOPE:-}
if [ -n "$bin" ]; then
  if [ ! -x "$bin" ]; then
    echo "::error::the leanscope input names $bin, which is not an executable file"
    exit 1
  fi
elif command -v leanscope >/dev/null; then
  bin=$(command -v leanscope)
else
  root="$RUNNER_TEMP/leanscope-install"
  echo "building leanscope from $GITHUB_ACTION_PATH (cargo install --locked)"
  cargo install --locked --quiet --root "$root" --path "$GITHUB_ACTION_PATH/sidecar"
  bin="$root/bin/leanscope"
fi

# The heartbeat mode runs no sample: it needs no sandbox and no GNU time.
if [ "${INPUT_MEASURE:-time}" = heartbeats ]; then
  command -v git >/dev/null || { echo "::error::the heartbeat mode needs git on the runner"; exit 1; }
  echo "leanscope at $bin"
  "$bin" --version
  echo "leanscope=$bin" >>"$GITHUB_OUTPUT"
  exit 0
fi

missing=()
[ -x /usr/bin/time ] || missing+=(time)
[ -x /usr/bin/bwrap ] || missing+=(bubblewrap)
command -v git >/dev/null || missing+=(git)
if [ ${#missing[@]} -gt 0 ]; then
  if command -v sudo >/dev/null && command -v apt-get >/dev/null; then
    echo "installing ${missing[*]} (Debian/Ubuntu packages)"
    sudo apt-get update -qq
    sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
  else
    echo "::error::leanscope revisions run needs ${missing[*]} on the runner"
    exit 1
  fi
fi

# Every sample runs in a bubblewrap sandbox, which needs unprivileged user
# namespaces (Ubuntu 24.04's AppArmor restricts them unless allowed).
if ! /usr/bin/bwrap --unshare-user --ro-bind / / /bin/true 2>"$RUNNER_TEMP/bwrap-check.err"; then
  echo "::error::bubblewrap cannot create its sandbox on this runner: $(head -c 300 "$RUNNER_TEMP/bwrap-check.err"). On Ubuntu 24.04 allow unprivileged user namespaces first: sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0"
  exit 1
fi

echo "leanscope at $bin"
"$bin" --version
echo "leanscope=$bin" >>"$GITHUB_OUTPUT"
