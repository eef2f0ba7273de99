#!/usr/bin/env bash
# The action's install step: mcpaql-conformance from the action's own checkout (the same ref as
# the action), from the package index (INPUT_VERSION), from a pip requirement, or not at all.
set -euo pipefail

python=$(command -v python || command -v python3 || true)
if [ -z "$python" ]; then
  echo "::error::mcpaql-conformance needs Python 3.11 or later on PATH (add actions/setup-python before this step)"
  exit 3
fi
install=${INPUT_INSTALL:-action}
if [ -n "${INPUT_VERSION:-}" ]; then
  install="mcpaql-conformance==${INPUT_VERSION#v}"
fi
case "$install" in
  none)
    ;;
  action)
    "$python" -m pip install --disable-pip-version-check --quiet "${GITHUB_ACTION_PATH:?is not set}"
    ;;
  *)
    "$python" -m pip install --disable-pip-version-check --quiet "$install"
    ;;
esac
if ! command -v mcpaql-conformance >/dev/null; then
  echo "::error::mcpaql-conformance is not on PATH after the install step (install: $install)"
  exit 3
fi
mcpaql-conformance --version
