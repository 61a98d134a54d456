//! The cores `cargo xtask mcu --core` runs: for each, the QEMU board, the Rust target and flags,
//! the C compiler and flags, the firmwares' per-board files and the board's memory map.
//!
//! The per-board files are named after the board: `examples/firmware-rust/memory/<board>.x`
//! (chosen by the firmware's build.rs from `$TINYAOT_MCU_BOARD`) and
//! `examples/firmware-c/<board>.ld`; the architecture's start-up is `cortex_m.*` or `rv32.*` in
//! both firmwares.

/// One core and the board that runs it.
#[derive(Debug)]
pub struct Core {
    /// The `--core` name.
    pub name: &'static str,
    /// Its name in tables.
    pub title: &'static str,
    /// QEMU's program.
    pub qemu: &'static str,
    /// QEMU's `-machine`.
    pub machine: &'static str,
    /// QEMU's `-cpu`, if the machine needs it named.
    pub cpu: Option<&'static str>,
    /// Further QEMU arguments.
    pub qemu_args: &'static [&'static str],
    /// The board's file name in the firmwares (`mps2_an386`: `memory/mps2_an386.x`,
    /// `mps2_an386.ld`).
    pub board: &'static str,
    /// The Rust target.
    pub rust_target: &'static str,
    /// rustc flags for the firmware and the runtime (the core, which turns on its extensions).
    pub rustflags: &'static [&'static str],
    /// The C compiler.
    pub cc: &'static str,
    /// The C compiler's flags that choose the core (and its floating-point ABI).
    pub c_arch: &'static [&'static str],
    /// The C firmware's start-up source for the architecture.
    pub c_startup: &'static str,
    /// The C library's specs for the link.
    pub c_specs: &'static str,
    /// Prefix of the binutils that read the ELF (`readelf`, `nm`).
    pub binutils: &'static str,
    /// Debian packages that provide the C compiler, its C library and QEMU.
    pub apt: &'static str,
    /// Address ranges (start, length) of the board's flash: code and constants.
    pub flash: &'static [(u64, u64)],
    /// Address range (start, length) of the RAM the firmware uses for data and the stack.
    pub ram: (u64, u64),
    /// Instructions per clock tick under `-icount shift=0` (numerator, denominator): the SysTick
    /// period in nanoseconds on Cortex-M, 1 for RV32's minstret.
    pub insns_per_tick: (u64, u64),
}

/// Whether the firmwares carry debug information: only with `TINYAOT_MCU_DEBUG_INFO=1` (for a
/// debugger under QEMU's `-s`). The measurements read the ELF's section headers and symbol table,
/// never its debug information, and building it is about half of each Rust firmware's build
/// (and a fifth of each C one's): CI builds close to a thousand firmwares.
pub fn debug_info() -> bool {
    std::env::var_os("TINYAOT_MCU_DEBUG_INFO").is_some_and(|v| v == "1")
}

/// The environment variable of [`extra_c_flags`].
pub const EXTRA_C_FLAGS_VAR: &str = "TINYAOT_MCU_CFLAGS";

/// Flags added to every C firmware's compile, from `TINYAOT_MCU_CFLAGS` (split at whitespace):
/// for the kernels' other paths a build can choose, such as `-DTINYAOT_MVE_INTRINSICS` (the
/// Cortex-M55's Helium kernels through ACLE intrinsics, the path of compilers without GNU inline
/// assembly), which CI runs on the M55 this way. A table measured so is not the README's.
pub fn extra_c_flags() -> Vec<String> {
    std::env::var(EXTRA_C_FLAGS_VAR)
        .map(|flags| flags.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default()
}

impl Core {
    /// `rustflags` as `CARGO_ENCODED_RUSTFLAGS` (separated by 0x1f).
    pub fn encoded_rustflags(&self) -> String {
        self.rustflags.join("\x1f")
    }

    /// `cargo build --release --locked --quiet` of the firmware crate in `crate_dir` for this
    /// core: its Rust target, its QEMU board (`$TINYAOT_MCU_BOARD`, which the firmware's link.rs
    /// reads) and its flags, and only them (whatever RUSTFLAGS the caller has is for the host),
    /// into `target_dir`. The caller adds its own arguments and variables.
    pub fn cargo_build(
        &self,
        crate_dir: &std::path::Path,
        target_dir: &std::path::Path,
    ) -> std::process::Command {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut command = std::process::Command::new(cargo);
        command
            .current_dir(crate_dir)
            .args(["build", "--release", "--locked", "--quiet"])
            .args(["--target", self.rust_target])
            .env("TINYAOT_MCU_BOARD", self.board)
            .env("CARGO_ENCODED_RUSTFLAGS", self.encoded_rustflags())
            .env_remove("RUSTFLAGS")
            .env("CARGO_TARGET_DIR", target_dir)
            .env(
                "CARGO_PROFILE_RELEASE_DEBUG",
                if debug_info() { "true" } else { "false" },
            );
        command
    }

    /// QEMU's command line up to the ELF.
    pub fn qemu_command(&self) -> Vec<&'static str> {
        let mut args = vec![self.qemu, "-machine", self.machine];
        if let Some(cpu) = self.cpu {
            args.extend(["-cpu", cpu]);
        }
        args.extend(self.qemu_args);
        args.extend([
            "-icount",
            "shift=0",
            "-semihosting-config",
            "enable=on,target=native",
            "-nographic",
            "-monitor",
            "none",
            "-serial",
            "none",
            "-kernel",
        ]);
        args
    }

    /// Whether `addr` is in the board's flash.
    pub fn in_flash(&self, addr: u64) -> bool {
        self.flash
            .iter()
            .any(|&(start, len)| (start..start + len).contains(&addr))
    }

    /// Whether `addr` is in the firmware's RAM.
    pub fn in_ram(&self, addr: u64) -> bool {
        (self.ram.0..self.ram.0 + self.ram.1).contains(&addr)
    }

    /// The instructions a clock tick resolves, as text (`40`, `31.25`).
    pub fn resolution(&self) -> String {
        let (n, d) = self.insns_per_tick;
        if n % d == 0 {
            (n / d).to_string()
        } else {
            format!("{}", n as f64 / d as f64)
        }
    }
}

const MIB: u64 = 1 << 20;

/// ARM's bare-metal toolchain and QEMU (Debian).
const ARM_APT: &str = "gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm";

/// Every core, in the order `--core all` runs them.
pub const CORES: &[Core] = &[
    Core {
        name: "m0plus",
        title: "Cortex-M0+",
        qemu: "qemu-system-arm",
        // ARMv6-M code on the Cortex-M3 board: a subset of its ISA, with unaligned accesses made
        // to fault (CCR.UNALIGN_TRP) by the firmwares' start-up, as on an M0+.
        machine: "mps2-an385",
        cpu: Some("cortex-m3"),
        qemu_args: &[],
        board: "mps2_an385",
        rust_target: "thumbv6m-none-eabi",
        rustflags: &[],
        cc: "arm-none-eabi-gcc",
        // GCC reads ARMv6-M inline assembly in the divided syntax unless told otherwise.
        c_arch: &[
            "-mcpu=cortex-m0plus",
            "-mthumb",
            "-mfloat-abi=soft",
            "-masm-syntax-unified",
        ],
        c_startup: "cortex_m.c",
        c_specs: "--specs=nano.specs",
        binutils: "arm-none-eabi-",
        apt: ARM_APT,
        flash: &[(0, 4 * MIB)],
        ram: (0x2000_0000, 4 * MIB),
        // 25 MHz.
        insns_per_tick: (40, 1),
    },
    Core {
        name: "m4",
        title: "Cortex-M4",
        qemu: "qemu-system-arm",
        machine: "mps2-an386",
        cpu: Some("cortex-m4"),
        qemu_args: &[],
        board: "mps2_an386",
        rust_target: "thumbv7em-none-eabihf",
        rustflags: &[],
        cc: "arm-none-eabi-gcc",
        c_arch: &[
            "-mcpu=cortex-m4",
            "-mthumb",
            "-mfloat-abi=hard",
            "-mfpu=fpv4-sp-d16",
        ],
        c_startup: "cortex_m.c",
        c_specs: "--specs=nano.specs",
        binutils: "arm-none-eabi-",
        apt: ARM_APT,
        flash: &[(0, 4 * MIB)],
        ram: (0x2000_0000, 4 * MIB),
        insns_per_tick: (40, 1),
    },
    Core {
        name: "m7",
        title: "Cortex-M7",
        qemu: "qemu-system-arm",
        machine: "mps2-an500",
        cpu: Some("cortex-m7"),
        qemu_args: &[],
        board: "mps2_an500",
        rust_target: "thumbv7em-none-eabihf",
        rustflags: &["-Ctarget-cpu=cortex-m7"],
        cc: "arm-none-eabi-gcc",
        // GCC's own tuning for the M7. It schedules before register allocation, after which the
        // generated C's depthwise tap loop (13 registers) and int8 ADD/SUB (12) once found no
        // registers ("impossible constraints"): their assembly now needs one register fewer (the
        // tap loop's loop is the compiler's, ADD/SUB packs each input's offset with its shift).
        c_arch: &[
            "-mcpu=cortex-m7",
            "-mthumb",
            "-mfloat-abi=hard",
            "-mfpu=fpv5-d16",
        ],
        c_startup: "cortex_m.c",
        c_specs: "--specs=nano.specs",
        binutils: "arm-none-eabi-",
        apt: ARM_APT,
        flash: &[(0, 4 * MIB)],
        ram: (0x2000_0000, 4 * MIB),
        // 25 MHz, as QEMU models AN500.
        insns_per_tick: (40, 1),
    },
    Core {
        name: "m33",
        title: "Cortex-M33",
        qemu: "qemu-system-arm",
        machine: "mps2-an505",
        cpu: Some("cortex-m33"),
        qemu_args: &[],
        board: "mps2_an505",
        rust_target: "thumbv8m.main-none-eabihf",
        // The DSP extension (runtime/build.rs turns on the DSP kernels for it).
        rustflags: &["-Ctarget-cpu=cortex-m33"],
        cc: "arm-none-eabi-gcc",
        c_arch: &[
            "-mcpu=cortex-m33",
            "-mthumb",
            "-mfloat-abi=hard",
            "-mfpu=fpv5-sp-d16",
        ],
        c_startup: "cortex_m.c",
        c_specs: "--specs=nano.specs",
        binutils: "arm-none-eabi-",
        apt: ARM_APT,
        flash: &[(0x1000_0000, 4 * MIB)],
        ram: (0x3800_0000, 4 * MIB),
        // 20 MHz.
        insns_per_tick: (50, 1),
    },
    Core {
        name: "m55",
        title: "Cortex-M55",
        qemu: "qemu-system-arm",
        machine: "mps3-an547",
        cpu: Some("cortex-m55"),
        qemu_args: &[],
        board: "mps3_an547",
        rust_target: "thumbv8m.main-none-eabihf",
        // The DSP extension and MVE: the runtime's build.rs turns on the Helium kernels
        // (`cfg(tinyaot_mve)`, and `__ARM_FEATURE_MVE` in C from `-mcpu=cortex-m55`), the DSP
        // ones where a kernel has no Helium variant.
        rustflags: &["-Ctarget-cpu=cortex-m55"],
        cc: "arm-none-eabi-gcc",
        c_arch: &["-mcpu=cortex-m55", "-mthumb", "-mfloat-abi=hard"],
        c_startup: "cortex_m.c",
        c_specs: "--specs=nano.specs",
        binutils: "arm-none-eabi-",
        apt: ARM_APT,
        // The ITCM, where the core boots (the vector table), and the QSPI flash.
        flash: &[(0x1000_0000, 512 << 10), (0x3800_0000, 8 * MIB)],
        ram: (0x3100_0000, 4 * MIB),
        // 32 MHz: 31.25 ns per tick.
        insns_per_tick: (125, 4),
    },
    Core {
        name: "rv32",
        title: "RV32IMC",
        qemu: "qemu-system-riscv32",
        machine: "virt",
        cpu: None,
        qemu_args: &["-bios", "none"],
        board: "riscv_virt",
        rust_target: "riscv32imc-unknown-none-elf",
        rustflags: &[],
        cc: "riscv64-unknown-elf-gcc",
        // ISA spec 2.2, in which RV32I includes the CSR instructions (later specs split them into
        // Zicsr, which Debian's picolibc has no multilib for).
        c_arch: &["-march=rv32imc", "-mabi=ilp32", "-misa-spec=2.2"],
        c_startup: "rv32.c",
        c_specs: "--specs=picolibc.specs",
        binutils: "riscv64-unknown-elf-",
        apt: "gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf qemu-system-misc",
        flash: &[(0x8000_0000, 8 * MIB)],
        ram: (0x8080_0000, 8 * MIB),
        // minstret counts instructions.
        insns_per_tick: (1, 1),
    },
];

/// The cores `--core` names: `all`, or a comma-separated list of names.
pub fn parse(list: &str) -> Result<Vec<&'static Core>, String> {
    if list.trim() == "all" {
        return Ok(CORES.iter().collect());
    }
    let mut cores: Vec<&'static Core> = Vec::new();
    for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let core = CORES.iter().find(|c| c.name == name).ok_or_else(|| {
            let names: Vec<&str> = CORES.iter().map(|c| c.name).collect();
            format!(
                "--core: no core `{name}` (one of {}, or all)",
                names.join(", ")
            )
        })?;
        if !cores.iter().any(|c| c.name == core.name) {
            cores.push(core);
        }
    }
    if cores.is_empty() {
        return Err("--core: no core named".into());
    }
    Ok(cores)
}

/// The default core.
pub fn m4() -> &'static Core {
    &CORES[1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_core_lists() {
        assert_eq!(parse("all").unwrap().len(), CORES.len());
        let names: Vec<&str> = parse("m7, m0plus,m7")
            .unwrap()
            .iter()
            .map(|c| c.name)
            .collect();
        assert_eq!(names, ["m7", "m0plus"]);
        assert!(parse("m3").unwrap_err().contains("m0plus, m4"));
        assert!(parse(",").is_err());
        assert_eq!(m4().name, "m4");
    }

    #[test]
    fn memory_maps_and_resolutions() {
        let m55 = parse("m55").unwrap()[0];
        assert!(m55.in_flash(0x1000_0000) && m55.in_flash(0x3800_1000));
        assert!(!m55.in_flash(0x3100_0000) && m55.in_ram(0x3100_0000));
        assert!(!m55.in_ram(0x6000_0000));
        assert_eq!(m55.resolution(), "31.25");
        assert_eq!(m4().resolution(), "40");
        assert_eq!(
            parse("m33").unwrap()[0].encoded_rustflags(),
            "-Ctarget-cpu=cortex-m33"
        );
    }
}
