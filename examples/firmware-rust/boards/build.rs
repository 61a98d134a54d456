//! Links for the QEMU board (`$TINYAOT_MCU_BOARD`, else the target's usual board) as the firmware
//! around this crate does, with its memory files.

use std::path::Path;

include!("../link.rs");

fn main() {
    link_for_board(Path::new("../memory"));
}
