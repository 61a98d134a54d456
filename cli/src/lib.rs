//! The `tinyaot` command line: a thin shell over tinyaot-codegen. Errors go to stderr as `error: …`
//! with a non-zero exit status, and no command leaves a partial output file behind.
//!
//! The arguments are parsed by hand (`src/args.rs`, about 200 lines with their own tests), not
//! with clap: clap 4 with derive costs about 28 s of CPU in a fresh release build, against the
//! README's goal that a fresh clone's first `cargo run --release` finishes in about 90 s.
//!
//! Outputs are written whole or not at all (tinyaot-codegen's `emit::files`). The binary also calls
//! [`install_signal_handlers`] first: SIGXFSZ is ignored, so that exceeding `ulimit -f` is an
//! `error:` (exit status 1) instead of a silent death, and SIGINT and SIGTERM remove the staging
//! entries of a write in progress before the process dies of the signal. Dying of it (rather than
//! exiting with 130 or 143) is what lets a calling shell or `make` see that the command was
//! interrupted and stop too; shells report it as status 130 or 143 all the same.
#![deny(missing_docs)]

mod args;
mod c;
mod cost;
mod group;
mod plan;
mod report;
mod rust;

use args::Args;

const USAGE: &str = "\
tinyaot: compile TensorFlow Lite models ahead of time into static inference code

Usage:
  tinyaot plan MODEL [--format text|json] [--svg FILE]
      Print the memory plan: every arena and state tensor's offset, size and lifetime, each
      kernel's scratch memory, the arena size, the liveness lower bound and the state size. --svg
      also draws the plan (op step across, offset down).
  tinyaot report MODEL -o FILE.html [--json] [--tflm-arena BYTES|auto]
      Write one self-contained HTML page (no network, no script) on what the model needs: the
      summary (operators, MACs, weight bytes, arena, its liveness lower bound, state, and TFLM's
      arena: --tflm-arena BYTES gives it, --tflm-arena auto asks TFLM, with the tflite-micro
      package of $TINYAOT_PYTHON or python3), a row per operator (input and output shapes, types
      and arena offsets, MACs, weight bytes, scratch, the kernel variant chosen), the memory plan
      drawn as SVG, and the estimated instructions per operator and per inference on each core
      of the built-in cost model, with its error on models it was not fitted on. --json writes
      the same data as JSON (to -o FILE, or stdout without -o).
  tinyaot rust MODEL -o FILE.rs [--name Net] [--runtime-path PATH]
      Write the Rust source that build.rs and include_model! produce. --name sets the struct name
      (default: the file stem in CamelCase); --runtime-path the runtime crate's path (::tinyaot).
  tinyaot c MODEL -o DIR [--prefix net] [--layout cmake|arduino|zephyr|esp-idf]
      Write self-contained C99 sources into DIR: PREFIX.h (the API: PREFIX_invoke, PREFIX_input,
      PREFIX_output, sizes and quantization as macros), PREFIX.c, PREFIX_kernels.h and the kernel
      files the model uses. `cc -std=c99 DIR/*.c main.c` builds; no malloc, stdio or libm. -o DIR
      is created (or updated in place: files an earlier run generated for PREFIX are replaced);
      --prefix sets the C prefix of every file and name (default: the file stem, sanitized).
      --layout adds a build system's files (a CMakeLists.txt of the user's is never overwritten):
        cmake    (default) CMakeLists.txt: a static library PREFIX, for add_subdirectory(DIR)
        arduino  library.properties, the sources in DIR/src: copy DIR into libraries/
        zephyr   the cmake files, and zephyr/module.yml, zephyr/CMakeLists.txt, zephyr/Kconfig:
                 add DIR to ZEPHYR_EXTRA_MODULES and set CONFIG_TINYAOT_PREFIX=y (upper case)
        esp-idf  CMakeLists.txt (idf_component_register) and idf_component.yml: a component,
                 for the project's components/ or EXTRA_COMPONENT_DIRS
  tinyaot plan|rust|c A.tflite B.tflite ... [--group NAME] [--keep MODEL:IO]...
      Several models that run one after another, sharing ONE arena as large as the largest of
      theirs; each keeps its own state. rust writes one FILE.rs: a struct (--group, default
      Models) with an accessor per model (models.a() -> a handle with one model's API); --name,
      once per model in order, names the handles (accessor: the name in snake case). c writes
      GROUP.h/GROUP.c (--group, default models: the buffer models_arena) and each model's files
      (--prefix, once per model in order). plan prints each plan and the shared size. Invoking one
      model overwrites the others' inputs and outputs, except those kept: --keep MODEL:IO (IO is
      input<i>, output<i>, inputs or outputs; MODEL a model's name or file stem) keeps it after
      the shared arena, where it survives the others' invokes.
  tinyaot help
      Print this text.

Memory (plan, report, rust and c):
  --no-overlap              plan without overlaps: every tensor keeps its bytes until its last
                            reader has finished (the arena at the liveness lower bound). By
                            default an operator's output may overlap an input it is the last to
                            read, where its kernel's access order allows: in place for
                            element-wise operators, a convolution writing over the input rows it
                            has finished with. Either way a graph input's bytes may be reused
                            once read: write the inputs before each invoke.
  --region NAME=SIZE@SECTION
                            a memory region besides the arena (given once per region, fastest
                            first; SIZE as below, e.g. --region dtcm=64K@.dtcm): the
                            activations with the most accesses per byte move there, as many as
                            fit, into one static per region in linker section SECTION (Rust
                            #[link_section], C section attribute). One model, not a group.
  --keep-order              run the operators in the model file's order. By default, where the
                            graph has parallel branches and another order keeps fewer bytes
                            alive at once, the operators run in that order (same outputs;
                            comments, hooks and messages keep the file's operator indices).

Resource limits (plan, report, rust and c; sizes take a binary suffix K, M or G):
  --max-arena-bytes N       largest activation arena and state region (default 64M)
  --max-constant-bytes N    largest total of the constant tensors (weights; default 256M)
  --max-tensor-bytes N      largest single tensor (default 256M)
  --max-operators N         most operators (default 100000)
  --max-tensors N           most tensors (default 1000000)
  --target-pointer-width W  16, 32 or 64 (default 32): no size may exceed the target's isize::MAX

Exit status: 0 on success, 1 when the model is refused or a file cannot be written, 2 on a usage
error. Messages go to stderr and start with `error:`.
";

/// Prepares the process for writing outputs, as the module docs describe. For the `tinyaot`
/// binary's `main`, before any other thread exists (the signal mask it sets is inherited); not for
/// library users, whose process's signals are theirs.
pub fn install_signal_handlers() {
    tinyaot_codegen::emit::files::ignore_sigxfsz();
    #[cfg(unix)]
    signals::install();
}

#[cfg(unix)]
mod signals {
    //! SIGINT and SIGTERM, handled by a thread: the signals are blocked in every thread and taken
    //! with `sigwait`, so the cleanup is ordinary code (file removal, locks), not a signal handler.

    use std::io::Write;

    pub(super) fn install() {
        // SAFETY: plain libc calls on a local, initialised signal set.
        unsafe {
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            for sig in [libc::SIGINT, libc::SIGTERM] {
                // A signal the parent made us ignore (`nohup`, a background job) stays ignored.
                let mut current: libc::sigaction = std::mem::zeroed();
                let ignored = libc::sigaction(sig, std::ptr::null(), &mut current) == 0
                    && current.sa_sigaction == libc::SIG_IGN;
                if !ignored {
                    libc::sigaddset(&mut set, sig);
                }
            }
            if libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) != 0 {
                return;
            }
            let spawned = std::thread::Builder::new()
                .name("signals".to_string())
                .spawn(move || wait(set));
            if spawned.is_err() {
                // No thread to take them: let the signals act as they did before.
                libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
            }
        }
    }

    fn wait(set: libc::sigset_t) {
        let mut sig: libc::c_int = 0;
        // SAFETY: `set` is initialised and `sig` a valid out-pointer.
        while unsafe { libc::sigwait(&set, &mut sig) } != 0 {}
        // Held until the process ends: no commit starts after the cleanup, and one in progress
        // has finished before it (the output is then whole).
        let _staged = tinyaot_codegen::emit::files::remove_staged_and_hold();
        let name = if sig == libc::SIGINT {
            "SIGINT"
        } else {
            "SIGTERM"
        };
        let _ = writeln!(
            std::io::stderr(),
            "error: interrupted by {name}; no partial output left behind"
        );
        // SAFETY: restore the default action and deliver the signal to this thread, where it is
        // unblocked: the process ends as killed by it.
        unsafe {
            libc::signal(sig, libc::SIG_DFL);
            let mut only: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut only);
            libc::sigaddset(&mut only, sig);
            libc::pthread_sigmask(libc::SIG_UNBLOCK, &only, std::ptr::null_mut());
            libc::raise(sig);
        }
        std::process::exit(128 + sig);
    }
}

/// Runs the command line on `args` (without the program name) and returns the exit status.
pub fn main(args: Vec<String>) -> i32 {
    let Some((command, rest)) = args.split_first() else {
        eprint!("{USAGE}");
        return 2;
    };
    let result = match command.as_str() {
        "plan" => plan::run(rest),
        "report" => report::run(rest),
        "rust" => rust::run(rest),
        "c" => c::run(rest),
        "help" | "--help" | "-h" => {
            print!("{USAGE}");
            return 0;
        }
        other => Err(Failure::Usage(format!(
            "unknown command `{other}` (expected plan, report, rust, c or help)"
        ))),
    };
    match result {
        Ok(()) => 0,
        Err(Failure::Usage(message)) => {
            eprintln!("error: {message}\n\n{USAGE}");
            2
        }
        Err(Failure::Refused(message)) => {
            eprintln!("error: {message}");
            1
        }
    }
}

/// Why a command failed.
#[derive(Debug)]
enum Failure {
    /// The command line itself is wrong (exit status 2, usage printed).
    Usage(String),
    /// The model was refused or a file could not be read or written (exit status 1).
    Refused(String),
}

impl From<tinyaot_codegen::Error> for Failure {
    fn from(e: tinyaot_codegen::Error) -> Self {
        Failure::Refused(e.to_string())
    }
}
