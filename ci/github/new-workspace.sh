# Sourced by the action's steps: new_workspace NAME prints a folder under $RUNNER_TEMP that does
# not exist yet (NAME, then NAME-2, NAME-3, ...), one for each run of the action in a job.
new_workspace() {
  local n=1 ws="$RUNNER_TEMP/$1"
  while [ -e "$ws" ]; do
    n=$((n + 1))
    ws="$RUNNER_TEMP/$1-$n"
  done
  printf '%s\n' "$ws"
}
