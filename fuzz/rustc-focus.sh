#!/usr/bin/env bash
# RUSTC_WRAPPER for `fuzz/run.sh --fast`: keeps libFuzzer's coverage instrumentation for
# tinyaot's own crates and the fuzz targets, and strips it from every dependency (syn, tera,
# prettyplease, flatbuffers, serde…).
#
# Why: libFuzzer walks every coverage counter after every execution. The pipeline target links
# about 119,000 instrumented edges, four fifths of them in the dependencies the emitters call on
# every run; walking them took about 40% of a long run's time. With the project's 25,000 edges
# alone the executions per second roughly double. The fuzzer still runs the dependencies; it is
# guided by what tinyaot's code does with them, which is what it is there to test.
#
# Cargo calls it as `rustc-focus.sh RUSTC ARGS…`.
set -euo pipefail

rustc="$1"
shift
crate=""
previous=""
for arg in "$@"; do
  [ "$previous" = "--crate-name" ] && crate="$arg"
  previous="$arg"
done
case "$crate" in
  # The project's crates, the fuzz targets, and cargo's target-info probe (`___`).
  tinyaot* | load | pipeline | ___ | "") exec "$rustc" "$@" ;;
esac
kept=()
for arg in "$@"; do
  case "$arg" in
    -Cpasses=sancov-module | -Cllvm-args=-sanitizer-coverage-*) ;;
    *) kept+=("$arg") ;;
  esac
done
exec "$rustc" "${kept[@]}"
