#!/usr/bin/env bash
# Builds each board example (all of them, or the directories named) with `cargo build --release
# --locked` and writes its flash and RAM use, read from the ELF's sections and symbols by
# binutils' `readelf` and `nm`, into its README.md between the lines `<!-- sizes:begin -->`
# and `<!-- sizes:end -->`. The figures in the READMEs come from this script only; run it again
# after changing a board, the runtime or the code generator.
#
#   examples/boards/sizes.sh [BOARD_DIR...]
#
# Needs arm-none-eabi-readelf/-nm (Debian: binutils-arm-none-eabi) for the Cortex-M boards and
# riscv64-unknown-elf-readelf/-nm (binutils-riscv64-unknown-elf) for RISC-V, and python3.
# CARGO_TARGET_DIR is honoured (default: each board's own target/).
set -euo pipefail
# Each board's .cargo/config.toml has its flags; RUSTFLAGS, even empty, would replace them.
unset RUSTFLAGS
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -eq 0 ]; then
  set -- "$here"/*/
fi
for dir in "$@"; do
  dir=$(cd "$dir" && pwd)
  board=$(basename "$dir")
  package=$(sed -n 's/^name = "\(.*\)"$/\1/p' "$dir/Cargo.toml" | head -n 1)
  target=$(sed -n 's/^target = "\([^"]*\)".*$/\1/p' "$dir/.cargo/config.toml" | head -n 1)
  case "$target" in
    thumb*) binutils=arm-none-eabi ;;
    riscv*) binutils=riscv64-unknown-elf ;;
    *) echo "$board: no binutils known for target '$target'" >&2; exit 1 ;;
  esac
  echo "== $board ($package, $target)" >&2
  (cd "$dir" && cargo build --release --locked >&2)
  target_dir=${CARGO_TARGET_DIR:-$dir/target}
  case "$target_dir" in /*) ;; *) target_dir="$dir/$target_dir" ;; esac
  elf="$target_dir/$target/release/$package"
  sections=$("$binutils-readelf" -SW "$elf")
  symbols=$("$binutils-nm" -S "$elf")
  rustc_version=$(cd "$dir" && rustc --version | cut -d' ' -f2)
  python3 "$here/sizes.py" "$dir/README.md" "$board" "$target" "$rustc_version" \
    "$binutils-readelf" "$sections" "$symbols"
done
