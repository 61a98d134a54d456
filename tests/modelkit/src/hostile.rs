//! The hostile-model suite: crafted models, each with the outcome tinyaot must give.
//!
//! Every case is a `.tflite` built here (no external data), in one of the [`Category`]s, with its
//! [`Expect`]ed outcome: refused with an error of a given kind whose message mentions the problem,
//! or accepted. `codegen/tests/hostile.rs` runs every case through both backends (and checks that
//! no case ever yields an internal error). The accepted cases are also committed with TFLM goldens
//! in `tests/fixtures/hostile` (its `generate.sh`), where the conformance tests check them bit for
//! bit in Rust and in C; so "accepted" means "bit-exact with TFLM".
//!
//! Each case names the defect it guards against; keep them small (a handful of tensors), so the
//! whole suite runs in well under a second.
//!
//! [`cases`] takes each category from its own file (`hostile/structure.rs`, `graph.rs`, …), the
//! corners of an operator family from the family's (`resample.rs`, `math_ops.rs`, `logic.rs`, …),
//! and the accepted corners with a theme of their own from theirs (dead channels, folded and
//! passed-through outputs, INT4 weights, the registry's types): one list of files, `FAMILIES`,
//! names each file's function once. The base models they edit are in `hostile/builders.rs`.

// The suite's files, each adding its cases in one function; [`cases`] runs them in this order.
// Corners of a new operator go into its family's file (or a category's); a new file is one more
// line here.
macro_rules! families {
    ($($family:ident :: $add:ident),* $(,)?) => {
        $(mod $family;)*

        /// Every file's function adding its cases, in the suite's order.
        const FAMILIES: &[fn(&mut Vec<Case>)] = &[$($family::$add),*];
    };
}

families!(
    structure::structure,
    graph::graph,
    quantization::quantization,
    types_and_parameters::types_and_parameters,
    resource_limits::resource_limits,
    legitimate_corners::legitimate_corners,
    registry_types::registry_types,
    resample::resample,
    math_ops::math_ops,
    ops_tensor::ops_tensor,
    logic::logic,
    matmul::matmul_corners,
    lookup_update::lookup_update,
    trig_reverse_add_n::trig_reverse_add_n,
    cumsum::cumsum_corners,
    partial_reads::partial_reads,
    shape_mismatches::shape_mismatches,
    signal::signal,
    detection::detection,
    circular_buffer::circular_buffer_corners,
);

// The base models the files edit, and the accepted corners with a theme of their own that
// `legitimate_corners` and `types_and_parameters` add.
mod builders;
mod dead_channels;
mod empty_depth;
mod folded_and_passed_through;
mod int4;
mod weights_at_run_time;
mod window_extents;

use crate::ModelSpec;

/// What part of a model a case attacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    /// The file itself: truncation, identifier, version, subgraphs, indices, buffers, types.
    Structure,
    /// The data flow: reads before writes, self-reads, missing or doubled writers.
    Graph,
    /// Scales, zero points and the multipliers derived from them.
    Quantization,
    /// Operator arity, element types, shapes and options.
    TypesAndParameters,
    /// Sizes beyond the configured limits or the target's address space.
    ResourceLimits,
    /// Unusual but legitimate models, which must be accepted (and match TFLM).
    LegitimateCorners,
}

/// The kind of refusal, mirroring `tinyaot_codegen::Error`'s variants by family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// A loader error: truncated, corrupt, wrong identifier or version, subgraph count, index
    /// out of range, unsupported element type, dynamic shape, size overflow.
    Load,
    /// `Error::InvalidModel`: TFLM refuses it, or its result there is undefined.
    Invalid,
    /// `Error::UnsupportedOpUse`: a valid use tinyaot does not compile.
    Unsupported,
    /// `Error::UnsupportedOp`: an operator tinyaot does not compile.
    UnsupportedOp,
    /// `Error::Limit`: a configured resource limit.
    Limit,
}

/// The outcome a case must have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expect {
    /// Refused with this kind of error, the message containing the text.
    Refused(Refusal, &'static str),
    /// Compiled by both backends (and bit-exact with TFLM).
    Accepted,
}

/// One crafted model and its expected outcome.
#[derive(Clone, Debug)]
pub struct Case {
    /// A short unique name (also the file stem when written out).
    pub name: String,
    /// What it attacks.
    pub category: Category,
    /// The `.tflite` bytes.
    pub model: Vec<u8>,
    /// What tinyaot must do with it.
    pub expect: Expect,
}

// ---------------------------------------------------------------------------------------------
// Scales

/// A scale pair `(s_in, s_out)` whose ratio rounds differently to a Q31 multiplier when taken in
/// f32 than in f64: the cases where computing multipliers in float is one LSB off against TFLM.
pub fn divergent_scales(seed: u32) -> (f32, f32) {
    let mut state = seed.wrapping_mul(2_654_435_761).wrapping_add(12_345);
    loop {
        state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        let a = 0.001 + (state >> 8) as f32 / (1u32 << 24) as f32 * 0.1;
        state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        let b = 0.001 + (state >> 8) as f32 / (1u32 << 24) as f32 * 0.1;
        let in_f32 = quantize_multiplier(f64::from(a / b));
        let in_f64 = quantize_multiplier(f64::from(a) / f64::from(b));
        if in_f32 != in_f64 {
            return (a, b);
        }
    }
}

/// TFLM's `QuantizeMultiplier` (enough of it to find divergent scales).
pub fn quantize_multiplier(real: f64) -> (i64, i32) {
    if real == 0.0 {
        return (0, 0);
    }
    let mut shift = real.abs().log2().floor() as i32 + 1;
    let mut q = (real / f64::powi(2.0, shift) * f64::powi(2.0, 31)).round() as i64;
    if q == 1 << 31 {
        q /= 2;
        shift += 1;
    }
    (q, shift)
}

// ---------------------------------------------------------------------------------------------
// The suite

/// Every case, in a fixed order.
pub fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for add in FAMILIES {
        add(&mut cases);
    }
    cases
}

struct Suite<'a> {
    cases: &'a mut Vec<Case>,
    category: Category,
}

impl Suite<'_> {
    fn bytes(&mut self, name: &str, model: Vec<u8>, expect: Expect) {
        self.cases.push(Case {
            name: name.to_string(),
            category: self.category,
            model,
            expect,
        });
    }

    fn refused(&mut self, name: &str, model: ModelSpec, kind: Refusal, mentions: &'static str) {
        self.bytes(name, model.to_bytes(), Expect::Refused(kind, mentions));
    }

    fn accepted(&mut self, name: &str, model: ModelSpec) {
        self.bytes(name, model.to_bytes(), Expect::Accepted);
    }
}
