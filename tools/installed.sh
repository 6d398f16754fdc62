# Sourced by the scripts that install pinned tools into .tools/ (tools/venv.sh,
# tools/crd-schemas.sh, examples/python/venv.sh), so each installs once and again
# only when its pins change.

# installed_from DIR FILE…: true when DIR was installed from exactly these files'
# contents; otherwise empties DIR for a fresh install and is false.
installed_from() {
  local dir=$1
  shift
  if [[ -f "$dir/.installed-from" && "$(cat "$dir/.installed-from")" == "$(cat "$@")" ]]; then
    return 0
  fi
  rm -rf "$dir"
  mkdir -p "$dir"
  return 1
}

# mark_installed DIR FILE…: records, once DIR's install succeeded, what it came from.
mark_installed() {
  local dir=$1
  shift
  cat "$@" > "$dir/.installed-from"
}
