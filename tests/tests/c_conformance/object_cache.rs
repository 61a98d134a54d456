//! Compiled objects shared between models: most of the C conformance test's time is the C
//! compilers on kernel files, and most models' kernel files are token for token those of another
//! model (the same kernels, used by the same set of layers) but for their first comment line, which
//! names the model. An object is therefore keyed by the compiler, its flags and the *preprocessed*
//! source (`-E -P`: comments and line markers gone, every included header expanded), and compiled
//! once per key, in this run and, through `CARGO_TARGET_TMPDIR`, in later runs of the same build.
//! A hit compares the stored preprocessed text byte for byte, so a hash collision is only a miss.

use std::collections::HashMap;
use std::hash::{Hash as _, Hasher as _};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};

/// What one compile gave: the object's path, or the compiler's (or the object check's) complaint.
type Compiled = Result<PathBuf, String>;

/// The objects of one compiler and flag set, and their check.
pub struct ObjectCache {
    dir: PathBuf,
    compiler: &'static str,
    flags: &'static [&'static str],
    /// Run on every object compiled (a hit has passed it already).
    check: fn(&Path) -> Result<(), String>,
    compiled: Mutex<HashMap<u128, Arc<OnceLock<Compiled>>>>,
}

impl ObjectCache {
    /// A cache in `dir` for `compiler` with `flags`; `check` vets each new object.
    pub fn new(
        dir: PathBuf,
        compiler: &'static str,
        flags: &'static [&'static str],
        check: fn(&Path) -> Result<(), String>,
    ) -> Self {
        ObjectCache {
            dir,
            compiler,
            flags,
            check,
            compiled: Mutex::new(HashMap::new()),
        }
    }

    /// The object of `source` (its quoted includes found in `include`): compiled now, or the one
    /// compiled earlier from the same preprocessed text. Any diagnostic is an error.
    pub fn object(&self, source: &Path, include: &Path) -> Compiled {
        let preprocessed = Command::new(self.compiler)
            .args(self.flags)
            .arg("-I")
            .arg(include)
            .args(["-E", "-P"])
            .arg(source)
            .output()
            .map_err(|e| format!("cannot run {}: {e}", self.compiler))?;
        if !preprocessed.status.success() || !preprocessed.stderr.is_empty() {
            return Err(format!(
                "{} -E failed or warned on {}:\n{}",
                self.compiler,
                source.display(),
                String::from_utf8_lossy(&preprocessed.stderr)
            ));
        }
        let text = preprocessed.stdout;
        let key = self.key(&text);
        let slot = self
            .compiled
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(key)
            .or_default()
            .clone();
        slot.get_or_init(|| self.compile(source, include, &text, key))
            .clone()
    }

    /// 128 bits of the compiler, flags and text (two differently seeded hashes).
    fn key(&self, text: &[u8]) -> u128 {
        let half = |seed: u8| {
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            seed.hash(&mut hasher);
            self.compiler.hash(&mut hasher);
            self.flags.hash(&mut hasher);
            text.hash(&mut hasher);
            hasher.finish()
        };
        (u128::from(half(0)) << 64) | u128::from(half(1))
    }

    fn compile(&self, source: &Path, include: &Path, text: &[u8], key: u128) -> Compiled {
        let object = self.dir.join(format!("{key:032x}.o"));
        let stored = self.dir.join(format!("{key:032x}.i"));
        // An earlier run's object, if its text is this one: it passed the compile and the check.
        if std::fs::read(&stored).is_ok_and(|t| t == text) && object.is_file() {
            return Ok(object);
        }
        std::fs::create_dir_all(&self.dir).map_err(|e| format!("{}: {e}", self.dir.display()))?;
        let _ = std::fs::remove_file(&stored);
        // Compiled from the file itself, so that a diagnostic names its lines.
        let output = Command::new(self.compiler)
            .args(self.flags)
            .arg("-I")
            .arg(include)
            .arg("-c")
            .arg(source)
            .arg("-o")
            .arg(&object)
            .output()
            .map_err(|e| format!("cannot run {}: {e}", self.compiler))?;
        if !output.status.success() || !output.stderr.is_empty() {
            let _ = std::fs::remove_file(&object);
            return Err(format!(
                "{} failed or warned on {}:\n{}",
                self.compiler,
                source.display(),
                String::from_utf8_lossy(&output.stderr)
            ));
        }
        (self.check)(&object)?;
        // The text last: a run killed in between leaves no stale pairing behind.
        std::fs::write(&stored, text).map_err(|e| format!("{}: {e}", stored.display()))?;
        Ok(object)
    }
}
