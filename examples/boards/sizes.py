"""Writes a board's flash and RAM figures into its README (called by sizes.sh, which says how).

Arguments: README path, board, Rust target, rustc version, the readelf used, its `-SW` output,
and `nm -S` output of the board's release ELF.
"""

import re
import sys

readme, board, target, rustc, tool, sections, symbols = sys.argv[1:]

# Flash: every allocated section with contents (PROGBITS): code, constants, the initial values of
# .data, and code the start-up copies into RAM (the ESP32-C3's .trap and .rwtext, in IRAM).
# Static RAM: every writable allocated section (.data, .bss, cortex-m-rt's .uninit, esp-hal's
# .noinit) and the code in IRAM. Neither: esp-hal's .stack (the rest of RAM) and .rotext_dummy
# and .rwdata_dummy (address space kept free beside the flash mapping and the IRAM code).
SECTION = re.compile(
    r"\[\s*\d+\]\s+(\S+)\s+(\S+)\s+[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)\s+[0-9a-f]+\s+"
    r"([A-Za-z]*)\s+\d+\s+\d+\s+\d+"
)
flash = ram = 0
for match in SECTION.finditer(sections):
    name, kind, flags = match.group(1), match.group(2), match.group(4)
    size = int(match.group(3), 16)
    if "A" not in flags:
        continue
    in_iram = name == ".trap" or name.startswith(".rwtext")
    if kind == "PROGBITS":
        flash += size
    if "W" in flags or in_iram:
        ram += size

# nm -S lines: address, size, type, name. The model's weights and other constants are the
# generated constants module's statics; its instance (arena and state) is the static MODEL.
sized = [line.split() for line in symbols.splitlines() if len(line.split()) == 4]
weights = sum(int(size, 16) for _, size, _, name in sized if "_constants" in name)
model = sum(int(size, 16) for _, size, _, name in sized if "MODEL" in name)


def n(value):
    return f"{value:,}"


# The project's convention for measured figures (xtask/src/readme.rs): the markers are kept, the
# body between them is replaced, set off by blank lines, and says which command wrote it.
BEGIN, END = "<!-- sizes:begin -->", "<!-- sizes:end -->"
body = f"""Written by `examples/boards/sizes.sh`: `cargo build --release` for `{target}` with rustc
{rustc}, measured from the ELF's sections (`{tool} -S`) and symbols.

| | bytes |
|---|---:|
| flash: code, constants and initial data | {n(flash)} |
| of which the model's weights and other constants | {n(weights)} |
| static RAM (the stack has the rest of RAM) | {n(ram)} |
| of which the model instance (arena and state) | {n(model)} |"""

with open(readme) as f:
    old = f.read()
start, end = old.find(BEGIN), old.find(END)
if start < 0 or end < start:
    sys.exit(f"{readme}: no {BEGIN} ... {END} block to replace")
new = old[: start + len(BEGIN)] + "\n\n" + body + "\n\n" + old[end:]
if new != old:
    with open(readme, "w") as f:
        f.write(new)
print(f"{board}: flash {n(flash)} B (weights {n(weights)}), static RAM {n(ram)} B (model {n(model)})")
