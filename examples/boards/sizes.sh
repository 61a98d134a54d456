#!/usr/bin/env bash
# Builds each board example (all of them, or the directories named) with `cargo build --release
# --locked` and writes its flash and RAM use, read from the ELF by binutils' `size` and `nm`, into
# its README.md between the lines `<!-- sizes:begin -->` and `<!-- sizes:end -->`. The figures in
# the READMEs come from this script only; run it again after changing a board, the runtime or the
# code generator.
#
#   examples/boards/sizes.sh [BOARD_DIR...]
#
# Needs arm-none-eabi-size/-nm (Debian: binutils-arm-none-eabi) for the Cortex-M boards and
# riscv64-unknown-elf-size/-nm (binutils-riscv64-unknown-elf) for RISC-V. CARGO_TARGET_DIR is
# honoured (default: each board's own target/).
set -euo pipefail
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
  # Berkeley format: text (code and constants), data (initialised RAM, whose image is in flash
  # too), bss (zeroed RAM).
  read -r text data bss _ < <("$binutils-size" -B "$elf" | sed -n 2p)
  # The model's share (in the python below): its weights and other constants (the generated
  # constants module's statics) and its instance, a static named MODEL (arena and state).
  symbols=$("$binutils-nm" -S "$elf")
  rustc_version=$(cd "$dir" && rustc --version | cut -d' ' -f2)
  python3 - "$dir/README.md" "$board" "$target" "$rustc_version" "$binutils-size" \
    "$text" "$data" "$bss" "$symbols" <<'PY'
import re, sys
readme, board, target, rustc, tool, text, data, bss, symbols = sys.argv[1:]
text, data, bss = map(int, (text, data, bss))
# nm -S lines: address, size, type, name.
sized = [line.split() for line in symbols.splitlines() if len(line.split()) == 4]
weights = sum(int(size, 16) for _, size, _, name in sized if "_constants" in name)
model = sum(int(size, 16) for _, size, _, name in sized if "MODEL" in name)
n = lambda v: f"{v:,}"
table = f"""<!-- sizes:begin (written by ../sizes.sh: do not edit by hand) -->
`cargo build --release` for `{target}` with rustc {rustc}, measured by `{tool}`:

| | bytes |
|---|---:|
| flash: code, constants and initialised data (text + data) | {n(text + data)} |
| of which the model's weights and other constants | {n(weights)} |
| static RAM (data + bss; the stack has the rest of RAM) | {n(data + bss)} |
| of which the model instance (arena and state) | {n(model)} |
<!-- sizes:end -->"""
with open(readme) as f:
    old = f.read()
new, count = re.subn(r"<!-- sizes:begin.*?<!-- sizes:end -->", lambda _: table, old, flags=re.S)
if count != 1:
    sys.exit(f"{readme}: expected one <!-- sizes:begin --> ... <!-- sizes:end --> block, found {count}")
if new != old:
    with open(readme, "w") as f:
        f.write(new)
print(f"{board}: flash {n(text + data)} B (weights {n(weights)}), static RAM {n(data + bss)} B (model {n(model)})")
PY
done
