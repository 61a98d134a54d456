#!/usr/bin/env bash
# Fuzzes tinyaot_codegen::load::load for SECONDS (default 120) with cargo-fuzz (libFuzzer).
#
#   fuzz/run.sh [SECONDS]
#
# Seeds fuzz/corpus/load (gitignored) with the shared reference models and the project's fixtures,
# then runs the `load` target on nightly. Exits non-zero when the fuzzer finds a crash, a leak, a
# timeout or an out-of-memory; the input that caused it is left in fuzz/artifacts/load/.
# The shared models are found at $TINYAOT_SHARED_DIR, else at <workspace>/../shared.
set -euo pipefail

seconds="${1:-120}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
shared="${TINYAOT_SHARED_DIR:-$root/../shared}"

if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked
fi

corpus="$here/corpus/load"
mkdir -p "$corpus"
seeded=0
for model in "$shared"/models/*.tflite "$root"/tests/fixtures/models/*.tflite; do
  [ -f "$model" ] || continue
  cp -f "$model" "$corpus/seed-$(basename "$model")"
  seeded=$((seeded + 1))
done
if [ "$seeded" = 0 ]; then
  echo "warning: no seed models found in $shared/models or $root/tests/fixtures/models" >&2
fi

cd "$here"
# -max_len: large enough for the fixtures and person_detect (300 KB); the 4 MB MobileNet seed
# is used truncated, which still exercises its structure. -timeout: one input may not take more
# than 10 s (a hang is a bug). -rss_limit_mb bounds memory (unbounded allocation is a bug).
exec cargo +nightly fuzz run load "$corpus" -- \
  -max_total_time="$seconds" \
  -rss_limit_mb=2048 \
  -max_len=400000 \
  -timeout=10 \
  -print_final_stats=1
