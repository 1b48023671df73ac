# Sourced by the editor end-to-end scripts: stop what they started and remove their temporary folder.
# A server of the extension can still be writing its cache when code-server is told to stop, so the
# whole process tree is stopped and waited for before the folder goes, and a folder that cannot be
# removed is a warning, never the check's failure.

# stop_tree PID: SIGTERM to PID and every process under it, up to 10 s for them to end, then SIGKILL.
stop_tree() {
  local all=() queue=("$1") p kids
  while [ ${#queue[@]} -gt 0 ]; do
    p=${queue[0]}; queue=("${queue[@]:1}")
    all+=("$p")
    kids=$(pgrep -P "$p" 2>/dev/null || true)
    for k in $kids; do queue+=("$k"); done
  done
  kill -TERM "${all[@]}" 2>/dev/null || true
  for _ in $(seq 50); do
    kill -0 "${all[@]}" 2>/dev/null || return 0
    sleep 0.2
  done
  kill -KILL "${all[@]}" 2>/dev/null || true
}

# remove_tmp DIR: rm -rf, tried again while something still writes into it.
remove_tmp() {
  for _ in 1 2 3 4 5; do
    rm -rf "$1" 2>/dev/null && return 0
    sleep 1
  done
  echo "warning: could not remove $1" >&2
}
