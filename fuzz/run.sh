#!/usr/bin/env bash
# Fuzzes tinyaot with cargo-fuzz (libFuzzer) on nightly, for SECONDS in total (default 120).
#
#   fuzz/run.sh [SECONDS] [TARGET] [--fast] [--fork N]
#
#   TARGET    load, pipeline or all (default all); arguments may come in any order.
#   --fast    for long runs: no sanitizer, no comparison tracing, and coverage instrumentation
#             only in tinyaot's own crates (fuzz/rustc-focus.sh): on the pipeline target about
#             5x the executions per second of the default AddressSanitizer build, which CI uses
#             (half of that from the focused instrumentation alone). Built apart, in
#             fuzz/target/fast, so that switching between the two does not rebuild either.
#   --fork N  N worker processes sharing the corpus (libFuzzer's -fork); a crash, timeout or
#             out-of-memory is saved to fuzz/artifacts/<target>/ and the run goes on, and the
#             script still exits non-zero at the end when any was found.
#
# Targets:
#   load      tinyaot_codegen::load::load on raw bytes. Corpus fuzz/corpus/load, seeded with the
#             shared reference models and the project's fixtures.
#   pipeline  the whole pipeline (load, plan, lower, Rust and C emission) on models that
#             tinyaot_modelkit::fuzz generates from the bytes; fails on a panic, an internal error
#             or a backend disagreement. Corpus fuzz/corpus/pipeline, seeded with random bytes.
# With `all` the time is split evenly between the two, run one after the other (one core).
#
# Exits non-zero when the fuzzer finds a crash, a leak, a timeout or an out-of-memory; the input
# that caused it is left in fuzz/artifacts/<target>/. Replay a pipeline input as a model with
#   cargo run -p tinyaot-modelkit --features arbitrary --example replay -- FILE
# The shared models are found at $TINYAOT_SHARED_DIR, else at <workspace>/../shared.
set -euo pipefail

seconds=120
target=all
build_flags=()
fork=0
usage() {
  echo "usage: fuzz/run.sh [SECONDS] [load|pipeline|all] [--fast] [--fork N]" >&2
  exit 2
}
while [ $# -gt 0 ]; do
  case "$1" in
    load | pipeline | all) target="$1" ;;
    --fast)
      build_flags=(--sanitizer none --no-trace-compares --target-dir target/fast)
      export RUSTC_WRAPPER="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/rustc-focus.sh"
      ;;
    --fork)
      [ $# -ge 2 ] || usage
      case "$2" in '' | *[!0-9]*) usage ;; esac
      fork="$2"
      shift
      ;;
    '' | *[!0-9]*) usage ;;
    *) seconds="$1" ;;
  esac
  shift
done

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
shared="${TINYAOT_SHARED_DIR:-$root/../shared}"

if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked
fi

seed_load() {
  local corpus="$here/corpus/load" seeded=0 model
  mkdir -p "$corpus"
  for model in "$shared"/models/*.tflite "$root"/tests/fixtures/models/*.tflite; do
    [ -f "$model" ] || continue
    cp -f "$model" "$corpus/seed-$(basename "$model")"
    seeded=$((seeded + 1))
  done
  if [ "$seeded" = 0 ]; then
    echo "warning: no seed models found in $shared/models or $root/tests/fixtures/models" >&2
  fi
}

seed_pipeline() {
  # Any bytes are a model to the generator; random seeds of a few sizes start it off with a spread
  # of graph sizes (libFuzzer also starts from the empty input, the one-operator model).
  local corpus="$here/corpus/pipeline" i
  mkdir -p "$corpus"
  for i in 1 2 3 4 5 6 7 8; do
    [ -f "$corpus/seed-$i" ] || head -c $((i * 256)) /dev/urandom >"$corpus/seed-$i"
  done
}

run() {
  local name="$1" secs="$2" max_len
  case "$name" in
    load)
      seed_load
      # Large enough for the fixtures and person_detect (300 KB); the 4 MB MobileNet seed is
      # used truncated, which still exercises its structure.
      max_len=400000
      ;;
    pipeline)
      seed_pipeline
      # The generator reads a few bytes per choice; 4 KB describes the largest graphs it makes.
      max_len=4096
      ;;
  esac
  echo "== fuzz target $name for ${secs}s"
  # -timeout: one input may not take more than 10 s (a hang is a bug; 60 s with --fork, see
  # below). -rss_limit_mb bounds memory (unbounded allocation is a bug).
  local fork_flags=() before=0 timeout=10
  if [ "$fork" -gt 0 ]; then
    # libFuzzer's timeout is wall-clock time: long background runs share the machine, and a
    # starved worker must not report a hang. Replay any timeout found to confirm it.
    timeout=60
    mkdir -p "$here/artifacts/$name"
    before=$(find "$here/artifacts/$name" -type f | wc -l)
    fork_flags=(-fork="$fork" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1
      -artifact_prefix="$here/artifacts/$name/")
  fi
  (cd "$here" && cargo +nightly fuzz run ${build_flags[@]+"${build_flags[@]}"} "$name" \
    "$here/corpus/$name" -- \
    -max_total_time="$secs" \
    -rss_limit_mb=2048 \
    -max_len="$max_len" \
    -timeout="$timeout" \
    -print_final_stats=1 \
    ${fork_flags[@]+"${fork_flags[@]}"})
  if [ "$fork" -gt 0 ] && [ "$(find "$here/artifacts/$name" -type f | wc -l)" -gt "$before" ]; then
    echo "fuzz target $name: new findings in fuzz/artifacts/$name/" >&2
    return 1
  fi
}

case "$target" in
  all)
    half=$((seconds / 2))
    [ "$half" -ge 1 ] || half=1
    run load "$half"
    run pipeline "$half"
    ;;
  *) run "$target" "$seconds" ;;
esac
