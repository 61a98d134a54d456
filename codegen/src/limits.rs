//! Resource limits: how large a model tinyaot agrees to compile, checked before anything large is
//! allocated or written.
//!
//! A `.tflite` file is small compared with what it can ask for: a few bytes of shape ask for a
//! 24 GiB activation, a vector length for a million operators. Every such size is compared here
//! with a configurable [`Limits`], and with what the *target* can address: a 40 GiB arena is a
//! valid `usize` on the host that runs tinyaot but not on the microcontroller the code is for.
//!
//! The checks run where the sizes become known: operator and tensor counts from the FlatBuffer's
//! vector lengths before the loader copies anything, each tensor's byte size as it is loaded, the
//! constant bytes as they are summed, the arena and state sizes after planning and before
//! emission. Both backends run the same checks, so they accept and refuse the same models.
//!
//! A limit is raised with a [`Config`](crate::Config) setter in a build script, or with the
//! matching `tinyaot plan|rust|c` flag; every refusal ([`Error::Limit`]) names both.

use crate::error::{Error, Result};

const MIB: u64 = 1 << 20;

/// The resource limits of one compilation. [`Limits::default`] fits a microcontroller and the
/// machine that builds for it; raise a field to compile a larger model.
///
/// ```
/// let mut limits = tinyaot_codegen::Limits::default();
/// limits.max_arena_bytes = 256 << 20;
/// limits.target_pointer_width = 64;
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Most operators a model may have (default 100,000). `--max-operators`,
    /// `Config::max_operators`.
    pub max_operators: usize,
    /// Most tensors a model may have (default 1,000,000). `--max-tensors`, `Config::max_tensors`.
    pub max_tensors: usize,
    /// Largest byte size of any one tensor, constant or not (default 256 MiB).
    /// `--max-tensor-bytes`, `Config::max_tensor_bytes`.
    pub max_tensor_bytes: u64,
    /// Largest total byte size of the constant tensors (the weights; default 256 MiB).
    /// `--max-constant-bytes`, `Config::max_constant_bytes`.
    pub max_constant_bytes: u64,
    /// Largest activation arena, and largest state region of variable tensors (default 64 MiB).
    /// `--max-arena-bytes`, `Config::max_arena_bytes`.
    pub max_arena_bytes: u64,
    /// The width in bits of the target's `usize` / `size_t`: 16, 32 or 64 (default 32; in a build
    /// script, [`Config`](crate::Config) takes Cargo's `CARGO_CFG_TARGET_POINTER_WIDTH`). No object
    /// may exceed the target's `isize::MAX` (`PTRDIFF_MAX`) bytes: Rust refuses larger arrays, and C
    /// cannot subtract pointers into them. `--target-pointer-width`,
    /// `Config::target_pointer_width`.
    pub target_pointer_width: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_operators: 100_000,
            max_tensors: 1_000_000,
            max_tensor_bytes: 256 * MIB,
            max_constant_bytes: 256 * MIB,
            max_arena_bytes: 64 * MIB,
            target_pointer_width: 32,
        }
    }
}

/// The pointer widths tinyaot can generate code for.
pub const POINTER_WIDTHS: [u32; 3] = [16, 32, 64];

impl Limits {
    /// The defaults with `target_pointer_width` taken from `CARGO_CFG_TARGET_POINTER_WIDTH` when
    /// Cargo sets it (in build scripts) to a supported width.
    pub fn from_env() -> Limits {
        let mut limits = Limits::default();
        let width = std::env::var("CARGO_CFG_TARGET_POINTER_WIDTH")
            .ok()
            .and_then(|w| w.trim().parse::<u32>().ok())
            .filter(|w| POINTER_WIDTHS.contains(w));
        if let Some(width) = width {
            limits.target_pointer_width = width;
        }
        limits
    }

    /// Refuses a pointer width other than 16, 32 or 64.
    pub fn validate(&self) -> Result<()> {
        if POINTER_WIDTHS.contains(&self.target_pointer_width) {
            Ok(())
        } else {
            Err(Error::Config {
                detail: format!(
                    "target pointer width {} is not supported (expected 16, 32 or 64)",
                    self.target_pointer_width
                ),
            })
        }
    }

    /// The largest object the target can hold: its `isize::MAX`, in bytes.
    pub fn target_max_object(&self) -> u64 {
        let width = self.target_pointer_width.clamp(16, 64);
        (1u64 << (width - 1)) - 1
    }

    /// Refuses a model with more than [`max_operators`](Self::max_operators) operators.
    pub fn check_operators(&self, count: usize) -> Result<()> {
        check_count(
            "the operator count",
            count,
            self.max_operators,
            "Config::max_operators or --max-operators",
        )
    }

    /// Refuses a model with more than [`max_tensors`](Self::max_tensors) tensors.
    pub fn check_tensors(&self, count: usize) -> Result<()> {
        check_count(
            "the tensor count",
            count,
            self.max_tensors,
            "Config::max_tensors or --max-tensors",
        )
    }

    /// Refuses a tensor (`what` names it) of `bytes` bytes above
    /// [`max_tensor_bytes`](Self::max_tensor_bytes) or the target's largest object.
    pub fn check_tensor_bytes(&self, what: impl FnOnce() -> String, bytes: u128) -> Result<()> {
        self.check_bytes(
            what,
            bytes,
            self.max_tensor_bytes,
            "Config::max_tensor_bytes or --max-tensor-bytes",
        )
    }

    /// Refuses a total of `bytes` constant bytes above
    /// [`max_constant_bytes`](Self::max_constant_bytes) or the target's largest object.
    pub fn check_constant_bytes(&self, bytes: u128) -> Result<()> {
        self.check_bytes(
            || "the total size of the constant tensors in bytes".to_string(),
            bytes,
            self.max_constant_bytes,
            "Config::max_constant_bytes or --max-constant-bytes",
        )
    }

    /// Refuses a memory plan whose arena (`arena_bytes`) or state region (`state_bytes`) is above
    /// [`max_arena_bytes`](Self::max_arena_bytes) or the target's largest object. Sizes rather
    /// than the plan: the limits sit below the planner, which the loader's limits come before.
    pub fn check_memory(&self, arena_bytes: usize, state_bytes: usize) -> Result<()> {
        let setting = "Config::max_arena_bytes or --max-arena-bytes";
        self.check_bytes(
            || "the size of the activation arena in bytes".to_string(),
            arena_bytes as u128,
            self.max_arena_bytes,
            setting,
        )?;
        self.check_bytes(
            || "the size of the state region (variable tensors) in bytes".to_string(),
            state_bytes as u128,
            self.max_arena_bytes,
            setting,
        )?;
        // The generated model keeps both in one buffer, which must be one object of the target.
        self.check_bytes(
            || "the size of the arena and the state together in bytes".to_string(),
            arena_bytes as u128 + state_bytes as u128,
            u64::MAX,
            setting,
        )
    }

    /// Refuses a group's buffer (the shared arena, then every model's state and kept inputs and
    /// outputs) larger than the target's largest object: it is one object in Rust and in C.
    pub fn check_group_bytes(&self, bytes: u128) -> Result<()> {
        self.check_bytes(
            || {
                "the size of the group's buffer (shared arena, states, kept tensors) in bytes"
                    .into()
            },
            bytes,
            u64::MAX,
            "Config::max_arena_bytes or --max-arena-bytes",
        )
    }

    /// Compares `bytes` with the configured `limit` and with the target's largest object, naming
    /// whichever is lower when it is exceeded.
    fn check_bytes(
        &self,
        what: impl FnOnce() -> String,
        bytes: u128,
        limit: u64,
        setting: &str,
    ) -> Result<()> {
        let target = self.target_max_object();
        let (limit, setting) = if limit <= target {
            (limit, setting.to_string())
        } else {
            (
                target,
                format!(
                    "Config::target_pointer_width or --target-pointer-width: the largest object a \
                     {}-bit target can hold",
                    self.target_pointer_width
                ),
            )
        };
        if bytes > u128::from(limit) {
            return Err(Error::Limit {
                what: what(),
                value: bytes,
                limit: u128::from(limit),
                setting,
            });
        }
        Ok(())
    }
}

fn check_count(what: &str, count: usize, limit: usize, setting: &str) -> Result<()> {
    if count > limit {
        return Err(Error::Limit {
            what: what.to_string(),
            value: count as u128,
            limit: limit as u128,
            setting: setting.to_string(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limit_of(e: Error) -> (String, u128, u128, String) {
        match e {
            Error::Limit {
                what,
                value,
                limit,
                setting,
            } => (what, value, limit, setting),
            other => panic!("expected a limit error, got {other:?}"),
        }
    }

    #[test]
    fn defaults() {
        let l = Limits::default();
        assert_eq!(l.max_operators, 100_000);
        assert_eq!(l.max_tensors, 1_000_000);
        assert_eq!(l.max_tensor_bytes, 268_435_456);
        assert_eq!(l.max_constant_bytes, 268_435_456);
        assert_eq!(l.max_arena_bytes, 67_108_864);
        assert_eq!(l.target_pointer_width, 32);
        assert!(l.validate().is_ok());
    }

    #[test]
    fn target_objects() {
        let mut l = Limits::default();
        assert_eq!(l.target_max_object(), 2_147_483_647);
        l.target_pointer_width = 16;
        assert_eq!(l.target_max_object(), 32_767);
        l.target_pointer_width = 64;
        assert_eq!(l.target_max_object(), 9_223_372_036_854_775_807);
        l.target_pointer_width = 8;
        assert!(matches!(l.validate(), Err(Error::Config { .. })));
    }

    #[test]
    fn counts() {
        let l = Limits::default();
        assert!(l.check_operators(100_000).is_ok());
        let (what, value, limit, setting) = limit_of(l.check_operators(100_001).unwrap_err());
        assert_eq!(
            (what.as_str(), value, limit),
            ("the operator count", 100_001, 100_000)
        );
        assert_eq!(setting, "Config::max_operators or --max-operators");
        assert!(l.check_tensors(1_000_000).is_ok());
        let (_, value, limit, setting) = limit_of(l.check_tensors(1_000_001).unwrap_err());
        assert_eq!((value, limit), (1_000_001, 1_000_000));
        assert_eq!(setting, "Config::max_tensors or --max-tensors");
    }

    #[test]
    fn bytes_name_the_lower_limit() {
        let mut l = Limits::default();
        assert!(l.check_tensor_bytes(|| "t".into(), 256 << 20).is_ok());
        let (what, value, limit, setting) = limit_of(
            l.check_tensor_bytes(|| "t".into(), (256 << 20) + 1)
                .unwrap_err(),
        );
        assert_eq!(
            (what.as_str(), value, limit),
            ("t", (256 << 20) + 1, 256 << 20)
        );
        assert!(setting.contains("--max-tensor-bytes"), "{setting}");

        // Raised above what a 32-bit target holds: the target's bound applies, and says so.
        l.max_tensor_bytes = u64::MAX;
        let (_, _, limit, setting) =
            limit_of(l.check_tensor_bytes(|| "t".into(), 1 << 31).unwrap_err());
        assert_eq!(limit, (1 << 31) - 1);
        assert!(setting.contains("--target-pointer-width"), "{setting}");
        l.target_pointer_width = 64;
        assert!(l.check_tensor_bytes(|| "t".into(), 40 << 30).is_ok());

        let l = Limits {
            target_pointer_width: 16,
            ..Limits::default()
        };
        let (_, _, limit, _) = limit_of(l.check_constant_bytes(40_000).unwrap_err());
        assert_eq!(limit, 32_767);
    }

    #[test]
    fn memory() {
        let l = Limits::default();
        assert!(l.check_memory(32 << 20, 32 << 20).is_ok());
        let (what, ..) = limit_of(l.check_memory((64 << 20) + 16, 0).unwrap_err());
        assert!(what.contains("arena"), "{what}");
        let (what, ..) = limit_of(l.check_memory(0, (64 << 20) + 16).unwrap_err());
        assert!(what.contains("state"), "{what}");
    }
}
