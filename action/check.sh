#!/usr/bin/env bash
# The action's check step: mcpaql-conformance check (which appends the markdown report to the
# step summary), then the files asked for in INPUT_FORMATS, the outputs in GITHUB_OUTPUT, and
# the step's exit code by INPUT_FAIL_ON. Inputs come in as INPUT_* variables (see action.yml).
set -uo pipefail

fail() {  # a wrong input or a missing file: exit 3, as the tool does
  echo "::error::$1"
  exit 3
}
py=$(command -v python || command -v python3) || fail "no python on PATH"
words() {  # split a string like a shell would (quotes kept together), one word a line; nothing is run
  # (read back with `while read`, not mapfile: macOS runners may have bash 3)
  "$py" -c 'import shlex, sys; print("\n".join(shlex.split(sys.argv[1])))' "$1"
}
output() {
  if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "$1=$2" >>"$GITHUB_OUTPUT"; fi
}

server=${INPUT_SERVER:-}
url=${INPUT_URL:-}
level=${INPUT_LEVEL:-1}
fail_on=${INPUT_FAIL_ON:-must}
out=${INPUT_OUTPUT_DIR:-conformance}
formats=$(echo "${INPUT_FORMATS:-json junit badge}" | tr ',' ' ' | tr '[:upper:]' '[:lower:]')

if [ -n "$server" ] && [ -n "$url" ]; then fail "give server or url, not both"; fi
if [ -z "$server" ] && [ -z "$url" ]; then fail "give the server's command (server) or its URL (url)"; fi
case "$level" in 1 | 2) ;; *) fail "level: expected 1 or 2, got '$level'" ;; esac
case "$fail_on" in must | should | never) ;; *) fail "fail-on: expected must, should or never, got '$fail_on'" ;; esac
case "${INPUT_ALLOW_WRITES:-false}" in true | false) ;; *) fail "allow-writes: expected true or false" ;; esac
case "${INPUT_ALLOW_DESTRUCTIVE:-false}" in true | false) ;; *) fail "allow-destructive: expected true or false" ;; esac
for format in $formats; do
  case "$format" in json | junit | badge | markdown | html | text) ;;
    *) fail "formats: unknown format '$format' (known: json junit badge markdown html text)" ;;
  esac
done

mkdir -p "$out" || fail "output-dir: cannot create '$out'"
out=$(cd "$out" && pwd)
report="$out/results.json"
bundle="$out/bundle.json"
rm -f "$report" "$bundle" "$out/junit.xml" "$out/badge.svg"

args=(check --level "$level" --format json --output "$report" --bundle "$bundle" --capture-dir "$out/capture")
if [ "${INPUT_ALLOW_WRITES:-false}" = true ]; then args+=(--allow-writes); fi
if [ "${INPUT_ALLOW_DESTRUCTIVE:-false}" = true ]; then args+=(--allow-destructive); fi
if [ -n "${INPUT_BASELINE:-}" ]; then args+=(--baseline "$INPUT_BASELINE"); fi
if [ -n "${INPUT_PLAN:-}" ]; then args+=(--plan "$INPUT_PLAN"); fi
if [ -n "${INPUT_ARGS:-}" ]; then
  split=$(words "$INPUT_ARGS") || fail "args: cannot split '$INPUT_ARGS'"
  while IFS= read -r word; do args+=("$word"); done <<<"$split"
fi
if [ -n "$url" ]; then
  args+=(--url "$url")
else
  split=$(words "$server") && [ -n "$split" ] || fail "server: cannot split '$server'"
  args+=(--)
  while IFS= read -r word; do args+=("$word"); done <<<"$split"
fi

shown=("${args[@]}")  # the log shows the command, a URL without its credentials or query
if [ -n "$url" ]; then
  masked='
import sys, urllib.parse
url = urllib.parse.urlsplit(sys.argv[1])
print(url._replace(netloc=url.netloc.rpartition("@")[2], query="", fragment="").geturl())'
  shown[${#shown[@]} - 1]=$("$py" -c "$masked" "$url" 2>/dev/null || echo "URL")
fi
echo "mcpaql-conformance ${shown[*]}"
mcpaql-conformance "${args[@]}"
code=$?
output exit-code "$code"
output bundle "$([ -f "$bundle" ] && echo "$bundle")"
if [ ! -f "$report" ]; then
  output report ""
  output junit ""
  output badge ""
  output level ""
  if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    echo "**MCP-AQL conformance: the server could not be checked (exit $code); see the step's log.**" \
      >>"$GITHUB_STEP_SUMMARY"
  fi
  echo "::error::mcpaql-conformance could not check the server (exit $code)"
  exit "$code"
fi
output report "$report"
reached='
import json, sys
level = json.load(open(sys.argv[1], encoding="utf-8")).get("conformanceLevel")
print("" if level is None else level)'
output level "$("$py" -c "$reached" "$report")"

junit="" badge=""
for format in $formats; do
  case "$format" in
    json) ;;
    junit) junit="$out/junit.xml"; mcpaql-conformance report "$report" -f junit -o "$junit" ;;
    badge) badge="$out/badge.svg"; mcpaql-conformance badge "$report" -o "$badge" ;;
    markdown) mcpaql-conformance report "$report" -f markdown -o "$out/report.md" ;;
    html) mcpaql-conformance report "$report" -f html -o "$out/report.html" ;;
    text) mcpaql-conformance report "$report" -f text -o "$out/report.txt" ;;
  esac
  written=$?
  [ "$written" -le 2 ] || fail "could not write the $format file from $report (exit $written)"
done
output junit "$junit"
output badge "$badge"

case "$fail_on:$code" in
  *:0 | never:1 | never:2 | must:2) exit 0 ;;
  *) echo "::error::MCP-AQL conformance: check exited $code (fail-on: $fail_on)"; exit "$code" ;;
esac
