//! Links with esp-hal's linker script (the chip's memory map, start-up and the sections espflash
//! expects). Here rather than in `.cargo/config.toml`'s rustflags, which a RUSTFLAGS variable in
//! the environment (even an empty one) would replace.

fn main() {
    println!("cargo:rustc-link-arg-bins=-Tlinkall.x");
}
