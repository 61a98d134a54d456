//! Per-kernel parity between the Rust runtime and the C kernels.
//!
//! The C kernels of every family (rendered from `templates/c/` with all functions, prefix
//! `parity`) are compiled once by `build.rs`. For each kernel call that lowering produces for a
//! model, [`check_model`] fills an arena with the same seeded data twice, runs the Rust kernel on
//! one copy and its C twin on the other with the same parameter values, and compares the two
//! arenas byte for byte. A difference is reported as the kernel, the operator and the parameter
//! values, not as "model X differs".
//!
//! The arena is laid out by the plan the generated code uses, overlaps included: where a kernel
//! declares an access contract (`tinyaot_codegen::lower::Access`), its output may share bytes with
//! a dying input. [`check_overlaps`] goes further and runs every declared contract at the tightest
//! overlap it allows, in both languages, against the same call with the two tensors apart.
//!
//! The parameter structs, their C mirrors and the dispatch are generated from the runtime's
//! sources by `cargo kernels` (`src/generated.rs`), so a new kernel joins the harness with
//! no hand edit here.

mod generated;

use tinyaot_codegen::ir::{DType, Graph};
use tinyaot_codegen::lower::{Access, CallKind, KernelCall, Operand, Stream, Value};
use tinyaot_codegen::plan::{MemoryPlan, Storage};

pub use generated::{ffi, run_c, run_rust, KERNELS};

/// Byte alignment of the arena and of constant copies: the generated code's (`ALIGN` = 16).
const ALIGN: usize = 16;

/// Bytes aligned to [`ALIGN`], without `unsafe`: an over-allocated vector and the aligned window.
#[derive(Clone)]
struct Aligned {
    storage: Vec<u8>,
    start: usize,
    len: usize,
}

impl Aligned {
    fn new(len: usize) -> Aligned {
        let storage = vec![0u8; len + ALIGN];
        let start = storage.as_ptr().align_offset(ALIGN).min(ALIGN);
        Aligned {
            storage,
            start,
            len,
        }
    }

    fn from_bytes(bytes: &[u8]) -> Aligned {
        let mut a = Aligned::new(bytes.len());
        a.bytes_mut().copy_from_slice(bytes);
        a
    }

    fn bytes(&self) -> &[u8] {
        &self.storage[self.start..self.start + self.len]
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.storage[self.start..self.start + self.len]
    }
}

/// One lowered kernel call of a model, with what both runners need to build their arguments.
pub struct Call<'a> {
    graph: &'a Graph<'a>,
    plan: &'a MemoryPlan,
    /// The operator the call implements (its scratch memory is planned by operator).
    op: usize,
    kernel: &'a KernelCall,
    /// Aligned copies of the constant operands, by operand position, then by tensor (a variadic
    /// operand has several).
    constants: Vec<Vec<Option<Aligned>>>,
}

pub use tinyaot_codegen::fold::{Element, Scalar};

/// The generated Rust runners (`tinyaot_codegen::fold::kernels`, the code generator's own, which
/// its constant folding runs) read a call through this.
impl tinyaot_codegen::fold::KernelArgs for Call<'_> {
    fn module(&self) -> &str {
        Call::module(self)
    }
    fn function(&self) -> &str {
        Call::function(self)
    }
    fn scalar<T: Scalar>(&self, name: &str) -> Result<T, String> {
        Call::scalar(self, name)
    }
    fn slice<T: Element>(&self, name: &str) -> Result<Vec<T>, String> {
        Call::slice(self, name)
    }
    fn opt_slice<T: Element>(&self, name: &str) -> Result<Option<Vec<T>>, String> {
        Call::opt_slice(self, name)
    }
    fn offset(&self, i: usize) -> Result<usize, String> {
        Call::offset(self, i)
    }
    fn src(&self, i: usize) -> Result<tinyaot::Src<'_>, String> {
        Call::src(self, i)
    }
    fn offsets(&self, i: usize) -> Result<Vec<usize>, String> {
        Call::offsets(self, i)
    }
    fn srcs(&self, i: usize) -> Result<Vec<tinyaot::Src<'_>>, String> {
        Call::srcs(self, i)
    }
}

impl<'a> Call<'a> {
    fn new(
        graph: &'a Graph<'a>,
        plan: &'a MemoryPlan,
        op: usize,
        kernel: &'a KernelCall,
    ) -> Call<'a> {
        let constants = kernel
            .operands
            .iter()
            .map(|op| match op {
                Operand::Src(_) | Operand::Srcs(_) => op
                    .tensors()
                    .iter()
                    .map(|&t| graph.tensors[t].data.as_deref().map(Aligned::from_bytes))
                    .collect(),
                Operand::Offset(_) | Operand::Offsets(_) | Operand::Scratch(_) => {
                    vec![None; op.tensors().len().max(1)]
                }
            })
            .collect();
        Call {
            graph,
            plan,
            op,
            kernel,
            constants,
        }
    }

    /// The kernel's module (family).
    pub fn module(&self) -> &str {
        self.kernel.module
    }

    /// The kernel's function.
    pub fn function(&self) -> &str {
        self.kernel.function
    }

    fn field(&self, name: &str) -> Result<&Value, String> {
        let params = self
            .kernel
            .params
            .as_ref()
            .ok_or("the call has no parameters")?;
        params
            .fields
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v)
            .ok_or_else(|| format!("{}: no field {name}", self.describe()))
    }

    /// A scalar field.
    pub fn scalar<T: Scalar>(&self, name: &str) -> Result<T, String> {
        T::from_value(self.field(name)?)
            .ok_or_else(|| format!("{}: field {name} has another type", self.describe()))
    }

    /// A slice field.
    pub fn slice<T: Element>(&self, name: &str) -> Result<Vec<T>, String> {
        self.elements(name, self.field(name)?)
    }

    /// An optional slice field.
    pub fn opt_slice<T: Element>(&self, name: &str) -> Result<Option<Vec<T>>, String> {
        match self.field(name)? {
            Value::None => Ok(None),
            Value::Some(inner) => self.elements(name, inner).map(Some),
            _ => Err(format!("{}: field {name} is not optional", self.describe())),
        }
    }

    fn elements<T: Element>(&self, name: &str, value: &Value) -> Result<Vec<T>, String> {
        tinyaot_codegen::fold::elements(self.graph, value)
            .map_err(|e| format!("{}: field {name}: {e}", self.describe()))
    }

    /// The offset of tensor `t` in the model's buffer: the arena, then the state.
    fn arena_offset(&self, t: usize) -> Result<usize, String> {
        let placement = &self.plan.tensors[t];
        match placement.storage {
            Storage::Arena => Ok(placement.offset),
            Storage::State => Ok(self.plan.arena_bytes + placement.offset),
            _ => Err(format!(
                "{}: tensor {t} is not in the arena",
                self.describe()
            )),
        }
    }

    /// The arena offset of the scratch memory that is operand `i`.
    fn scratch_offset(&self, i: usize) -> Result<usize, String> {
        let slot = self.kernel.operands[..i]
            .iter()
            .filter(|o| matches!(o, Operand::Scratch(_)))
            .count();
        self.plan
            .scratch
            .iter()
            .find(|s| s.op == self.op && s.slot == slot)
            .map(|s| s.offset)
            .ok_or_else(|| format!("{}: scratch {slot} is not planned", self.describe()))
    }

    fn operand(&self, i: usize) -> Result<&Operand, String> {
        self.kernel
            .operands
            .get(i)
            .ok_or_else(|| format!("{}: no operand {i}", self.describe()))
    }

    /// The arena offsets of operand `i`: of its one tensor or scratch memory, or of each
    /// tensor of a variadic operand.
    fn offsets_of(&self, i: usize) -> Result<Vec<usize>, String> {
        match self.operand(i)? {
            Operand::Scratch(_) => Ok(vec![self.scratch_offset(i)?]),
            operand => operand
                .tensors()
                .iter()
                .map(|&t| self.arena_offset(t))
                .collect(),
        }
    }

    /// Each tensor of operand `i` (scratch memory: one) as its constant's aligned copy or its
    /// arena offset.
    fn places(&self, i: usize) -> Result<Vec<Result<usize, &Aligned>>, String> {
        let operand = self.operand(i)?;
        if let Operand::Scratch(_) = operand {
            return Ok(vec![Ok(self.scratch_offset(i)?)]);
        }
        operand
            .tensors()
            .iter()
            .zip(&self.constants[i])
            .map(|(&t, constant)| match constant {
                Some(data) => Ok(Err(data)),
                None => self.arena_offset(t).map(Ok),
            })
            .collect()
    }

    /// The `Src` of each tensor of operand `i`: its constant's aligned copy, or its place.
    fn srcs_of(&self, i: usize) -> Result<Vec<tinyaot::Src<'_>>, String> {
        Ok(self
            .places(i)?
            .into_iter()
            .map(|place| match place {
                Ok(offset) => tinyaot::Src::Arena(offset),
                Err(data) => tinyaot::Src::Bytes(data.bytes()),
            })
            .collect())
    }

    /// Operand `i`, one tensor or scratch memory, as an arena offset (Rust).
    pub fn offset(&self, i: usize) -> Result<usize, String> {
        match self.offsets_of(i)?[..] {
            [offset] => Ok(offset),
            _ => Err(format!(
                "{}: operand {i} is not one tensor",
                self.describe()
            )),
        }
    }

    /// Operand `i`, one tensor, as a `Src` (Rust).
    pub fn src(&self, i: usize) -> Result<tinyaot::Src<'_>, String> {
        let mut srcs = self.srcs_of(i)?;
        match srcs.len() {
            1 => Ok(srcs.remove(0)),
            _ => Err(format!(
                "{}: operand {i} is not one tensor",
                self.describe()
            )),
        }
    }

    /// Variadic operand `i` as the arena offsets of its tensors (Rust).
    pub fn offsets(&self, i: usize) -> Result<Vec<usize>, String> {
        self.offsets_of(i)
    }

    /// Variadic operand `i` as a `Src` per tensor (Rust).
    pub fn srcs(&self, i: usize) -> Result<Vec<tinyaot::Src<'_>>, String> {
        self.srcs_of(i)
    }

    /// Operand `i` as a C input pointer: into the arena at `base` (`len` bytes), or at the
    /// constant's aligned copy.
    pub fn c_input(&self, base: *mut u8, len: usize, i: usize) -> Result<*const u8, String> {
        match self.c_inputs(base, len, i)?[..] {
            [pointer] => Ok(pointer),
            _ => Err(format!(
                "{}: operand {i} is not one tensor",
                self.describe()
            )),
        }
    }

    /// Operand `i` as a C output pointer into the arena at `base` (`len` bytes).
    pub fn c_output(&self, base: *mut u8, len: usize, i: usize) -> Result<*mut u8, String> {
        match self.c_outputs(base, len, i)?[..] {
            [pointer] => Ok(pointer),
            _ => Err(format!(
                "{}: operand {i} is not one tensor",
                self.describe()
            )),
        }
    }

    /// Variadic operand `i` as C input pointers, one per tensor: into the arena at `base` (`len`
    /// bytes), or at the constant's aligned copy.
    pub fn c_inputs(&self, base: *mut u8, len: usize, i: usize) -> Result<Vec<*const u8>, String> {
        self.places(i)?
            .into_iter()
            .map(|place| match place {
                Ok(offset) => self
                    .c_pointer(base, len, i, offset)
                    .map(<*mut u8>::cast_const),
                Err(data) => Ok(data.bytes().as_ptr()),
            })
            .collect()
    }

    /// The C pointer at `offset` into the arena at `base` (`len` bytes), for operand `i`.
    fn c_pointer(
        &self,
        base: *mut u8,
        len: usize,
        i: usize,
        offset: usize,
    ) -> Result<*mut u8, String> {
        if offset > len {
            return Err(format!(
                "{}: operand {i} is outside the arena",
                self.describe()
            ));
        }
        Ok(base.wrapping_add(offset))
    }

    /// Variadic operand `i` as C output pointers into the arena at `base` (`len` bytes), one per
    /// tensor.
    pub fn c_outputs(&self, base: *mut u8, len: usize, i: usize) -> Result<Vec<*mut u8>, String> {
        self.offsets_of(i)?
            .into_iter()
            .map(|offset| self.c_pointer(base, len, i, offset))
            .collect()
    }

    /// `module::function` and the parameter values, for messages.
    pub fn describe(&self) -> String {
        format!("{}::{}", self.kernel.module, self.kernel.function)
    }

    /// The parameter values, for a failure report.
    fn parameters(&self) -> String {
        match &self.kernel.params {
            None => String::new(),
            Some(p) => p
                .fields
                .iter()
                .map(|(n, v)| format!("{n}: {}", short(v)))
                .collect::<Vec<_>>()
                .join(", "),
        }
    }
}

/// A field value in a report: long lists shortened.
fn short(value: &Value) -> String {
    let text = format!("{value:?}");
    if text.len() > 120 {
        format!("{}…", &text[..120])
    } else {
        text
    }
}

/// What [`check_model`] did.
#[derive(Debug, Default)]
pub struct Outcome {
    /// `(module, function)` of every kernel call compared.
    pub compared: Vec<(String, String)>,
    /// A description of every difference found.
    pub differences: Vec<String>,
}

/// Deterministic filler: the arena is the same for both runs, and every run of the test.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// The model's buffer (the plan's arena, then its state): random bytes, and for every float32
/// tensor random finite values in [-8, 8) (random bytes would be NaN payloads, which C and Rust
/// need not propagate alike, and are not what a model computes on).
fn filled_arena(graph: &Graph, plan: &MemoryPlan, seed: u64) -> Aligned {
    let mut arena = Aligned::new(plan.arena_bytes + plan.state_bytes);
    let mut rng = SplitMix(seed);
    for b in arena.bytes_mut() {
        *b = rng.next() as u8;
    }
    for (t, tensor) in graph.tensors.iter().enumerate() {
        let placement = &plan.tensors[t];
        let start = match placement.storage {
            Storage::Arena => placement.offset,
            Storage::State => plan.arena_bytes + placement.offset,
            _ => continue,
        };
        if tensor.dtype != DType::F32 || tensor.bytes == 0 {
            continue;
        }
        let bytes = arena.bytes_mut();
        let Some(region) = bytes.get_mut(start..start + tensor.bytes) else {
            continue;
        };
        for chunk in region.chunks_exact_mut(4) {
            let x = (rng.next() >> 40) as f32 / (1u64 << 24) as f32 * 16.0 - 8.0;
            chunk.copy_from_slice(&x.to_le_bytes());
        }
    }
    arena
}

/// Runs every kernel call of `model` (which must load, plan and lower) in Rust and in C on the
/// same arena, laid out by the plan the generated code uses (its overlaps included), and compares
/// the results; `name` labels the reports.
pub fn check_model(name: &str, model: &[u8], seed: u64) -> Result<Outcome, String> {
    let graph = tinyaot_codegen::config::load_and_fold(model, &tinyaot_codegen::Limits::default())
        .map_err(|e| format!("{name}: {e}"))?;
    let calls = tinyaot_codegen::lower::lower(&graph).map_err(|e| format!("{name}: {e}"))?;
    let scratch = tinyaot_codegen::plan::scratch_requests(&calls);
    let access = tinyaot_codegen::plan::access_contracts(&calls);
    let plan = tinyaot_codegen::plan::plan_graph_with(&graph, &scratch, &access)
        .map_err(|e| format!("{name}: {e}"))?;
    let mut outcome = Outcome::default();
    for (index, call) in calls.iter().enumerate() {
        let CallKind::Kernel(kernel) = &call.kind else {
            continue;
        };
        let call_ctx = Call::new(&graph, &plan, call.op, kernel);
        let start = filled_arena(&graph, &plan, seed ^ index as u64);
        let (rust, c) =
            run_both(&call_ctx, &start).map_err(|e| format!("{name} op {}: {e}", call.op))?;
        outcome
            .compared
            .push((kernel.module.to_string(), kernel.function.to_string()));
        if let Some(d) = difference(&call_ctx, &rust, &c) {
            outcome.differences.push(format!(
                "{name}: operator #{} ({}), {d}",
                call.op,
                call_ctx.describe(),
            ));
        }
    }
    Ok(outcome)
}

/// The smallest multiple of 16 (the arena's alignment) `D` such that the output of stream `s`,
/// placed `D` bytes below its input, keeps the contract as `tinyaot_codegen::plan::check_plan_with`
/// states it: every group of output pixels avoids the input bytes from the lowest one any pixel
/// from the group on reads ([`Stream::min_read`]; from the next group on when the group reads
/// before it writes) to the input's end. Computed here, not taken from the planner: group `g`
/// (pixels `start..end`) forbids exactly the `D` with `start · output_pixel − input_len < D <
/// end · output_pixel − pending`, and the answer is the least aligned `D` outside every such
/// interval (not necessarily past all of them: an output larger than its input may have groups
/// that lie past the input's end).
pub fn tightest_gap(s: &Stream) -> usize {
    let pixels = s.pixels();
    if pixels == 0 || s.group == 0 {
        return 0;
    }
    let (out_pixel, input_len) = (s.output_pixel as i128, s.input_len() as i128);
    let mut forbidden = Vec::with_capacity(pixels.div_ceil(s.group));
    let mut lowest = s.input_len();
    for g in (0..pixels.div_ceil(s.group)).rev() {
        let (start, end) = (g * s.group, ((g + 1) * s.group).min(pixels));
        let after = lowest;
        lowest = (start..end).map(|p| s.min_read(p)).fold(lowest, usize::min);
        let pending = if s.reads_first { after } else { lowest };
        forbidden.push((
            start as i128 * out_pixel - input_len,
            end as i128 * out_pixel - pending as i128,
        ));
    }
    // By lower end: once an interval starts at or above the candidate, so do the rest.
    forbidden.sort_unstable();
    let mut gap: i128 = 0;
    for (low, high) in forbidden {
        if low >= gap {
            break;
        }
        if high > gap {
            gap = (high + ALIGN as i128 - 1) / ALIGN as i128 * ALIGN as i128;
        }
    }
    gap as usize
}

/// The smallest multiple of 16 `D` such that the output of a reversible stream `s`, placed `D`
/// bytes above its input, keeps the contract as `tinyaot_codegen::plan::check_plan_with` states
/// it: the groups go last to first, and every group of output pixels avoids the input bytes below
/// the highest one any pixel up to the group's end reads ([`Stream::max_read`]; up to its start
/// when the group reads before it writes). Group `g` (pixels `start..end`) forbids exactly the
/// `D` below `pending − start · output_pixel`, so the answer is the largest of those, aligned up.
pub fn tightest_gap_above(s: &Stream) -> usize {
    let mut highest = 0;
    let mut gap = 0;
    for g in 0..s.pixels().div_ceil(s.group.max(1)) {
        let (start, end) = (g * s.group, ((g + 1) * s.group).min(s.pixels()));
        let before = highest;
        highest = (start..end)
            .map(|p| s.max_read(p))
            .fold(highest, usize::max);
        let pending = if s.reads_first { before } else { highest };
        gap = gap.max(pending.saturating_sub(start * s.output_pixel));
    }
    gap.next_multiple_of(ALIGN)
}

/// One access contract run overlapped by [`check_overlaps`].
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Overlapped {
    /// The kernel's module (family).
    pub module: String,
    /// The kernel's function.
    pub function: String,
    /// `"in place"`, `"slice"`, `"stream"` or `"reversed stream"`.
    pub contract: &'static str,
    /// How far below its input the output started, in bytes (above it for a reversed stream; 0
    /// in place).
    pub gap: usize,
}

/// What [`check_overlaps`] did.
#[derive(Debug, Default)]
pub struct OverlapOutcome {
    /// Every contract run overlapped, in call order.
    pub overlapped: Vec<Overlapped>,
    /// A description of every difference found.
    pub differences: Vec<String>,
}

/// `plan` with tensors `input` and `output` moved to the offsets `at` and the arena grown to
/// `arena_bytes` (the state region follows it, as in the generated code).
fn relocated(
    plan: &MemoryPlan,
    (input, output): (usize, usize),
    at: (usize, usize),
    arena_bytes: usize,
) -> MemoryPlan {
    let mut moved = plan.clone();
    moved.arena_bytes = arena_bytes;
    moved.tensors[input].offset = at.0;
    moved.tensors[output].offset = at.1;
    moved
}

/// Runs `call` in Rust and in C on copies of `start`: the two arenas after.
fn run_both(call: &Call, start: &Aligned) -> Result<(Aligned, Aligned), String> {
    let mut rust = start.clone();
    run_rust(call, rust.bytes_mut())?;
    let mut c = start.clone();
    run_c(call, c.bytes_mut())?;
    Ok((rust, c))
}

/// The first byte where the arenas `rust` and `c` after `call` differ, described.
fn difference(call: &Call, rust: &Aligned, c: &Aligned) -> Option<String> {
    let at = rust
        .bytes()
        .iter()
        .zip(c.bytes())
        .position(|(a, b)| a != b)?;
    Some(format!(
        "arena byte {at}: Rust {} vs C {}; parameters {{{}}}",
        rust.bytes()[at],
        c.bytes()[at],
        call.parameters()
    ))
}

/// Runs every access contract that a kernel call of `model` declares (the model must load, plan
/// and lower) twice, each time in Rust and in C: (a) with the contract's input and output apart,
/// (b) with them overlapping as tightly as the contract allows (in place: one offset; a slice:
/// the input at its place in the output; a stream: the output [`tightest_gap`] bytes below the
/// input, and for a reversible one also [`tightest_gap_above`] bytes above it), from the same
/// input bytes, and requires the four outputs to be identical byte for byte (and Rust's arena to
/// equal C's after each run). The other operands keep their places in the model's plan without
/// overlaps; the two tensors go to fresh bytes past its arena. Also requires every stream overlap
/// the planner itself makes to be at least [`tightest_gap`] apart ([`tightest_gap_above`] above;
/// a planner closer than that would break the contract, or this computation would be wrong).
/// Contracts that the planner could never use (a tensor outside the arena, or empty) are not
/// run; `name` labels the reports.
pub fn check_overlaps(name: &str, model: &[u8], seed: u64) -> Result<OverlapOutcome, String> {
    let graph = tinyaot_codegen::config::load_and_fold(model, &tinyaot_codegen::Limits::default())
        .map_err(|e| format!("{name}: {e}"))?;
    let calls = tinyaot_codegen::lower::lower(&graph).map_err(|e| format!("{name}: {e}"))?;
    let scratch = tinyaot_codegen::plan::scratch_requests(&calls);
    let apart = tinyaot_codegen::plan::plan_graph_with_scratch(&graph, &scratch)
        .map_err(|e| format!("{name}: {e}"))?;
    let access = tinyaot_codegen::plan::access_contracts(&calls);
    let planned = tinyaot_codegen::plan::plan_graph_with(&graph, &scratch, &access)
        .map_err(|e| format!("{name}: {e}"))?;
    let mut outcome = OverlapOutcome::default();
    for o in &planned.overlaps {
        if let Access::Stream {
            input,
            output,
            stream,
        } = o.access
        {
            let (i, out) = (
                planned.tensors[input].offset,
                planned.tensors[output].offset,
            );
            let tightest = tightest_gap(&stream);
            if out <= i && i - out < tightest {
                outcome.differences.push(format!(
                    "{name}: operator #{}: the planner put the output {} bytes below the input, \
                     closer than the tightest gap computed here ({tightest})",
                    o.op,
                    i - out
                ));
            }
            if out > i && (!stream.reversible || out - i < tightest_gap_above(&stream)) {
                outcome.differences.push(format!(
                    "{name}: operator #{}: the planner put the output {} bytes above the input, \
                     closer than the tightest reverse gap computed here ({}; reversible: {})",
                    o.op,
                    out - i,
                    tightest_gap_above(&stream),
                    stream.reversible
                ));
            }
        }
    }
    for (index, call) in calls.iter().enumerate() {
        let CallKind::Kernel(kernel) = &call.kind else {
            continue;
        };
        for (k, access) in kernel.access.iter().enumerate() {
            let (x, y) = access.tensors();
            let (px, py) = (&apart.tensors[x], &apart.tensors[y]);
            if px.storage != Storage::Arena
                || py.storage != Storage::Arena
                || px.bytes == 0
                || py.bytes == 0
            {
                continue;
            }
            let what = format!(
                "{name}: operator #{} ({}::{}, tensor #{x} into #{y})",
                call.op, kernel.module, kernel.function
            );
            // The overlapped layouts: (contract, output offset minus input offset).
            let layouts: Vec<(&'static str, isize)> = match access {
                Access::InPlace { .. } if py.bytes <= px.bytes => vec![("in place", 0)],
                Access::Slice { offset, .. } if offset + px.bytes <= py.bytes => {
                    vec![("slice", -(*offset as isize))]
                }
                Access::Stream { stream, .. }
                    if stream.input_len() == px.bytes && stream.output_len() == py.bytes =>
                {
                    let mut layouts = vec![("stream", -(tightest_gap(stream) as isize))];
                    if stream.reversible {
                        layouts.push(("reversed stream", tightest_gap_above(stream) as isize));
                    }
                    layouts
                }
                _ => {
                    outcome.differences.push(format!(
                        "{what}: declares {access:?}, which its tensors' sizes cannot take"
                    ));
                    continue;
                }
            };
            let base = apart.arena_bytes;
            let (xb, yb) = (
                px.bytes.next_multiple_of(ALIGN),
                py.bytes.next_multiple_of(ALIGN),
            );
            let widest = layouts
                .iter()
                .map(|l| l.1.unsigned_abs())
                .max()
                .unwrap_or(0);
            let arena_bytes = base + xb + yb + widest;
            // (a) input, then output, apart.
            let plan_a = relocated(&apart, (x, y), (base, base + xb), arena_bytes);
            let start_a = filled_arena(&graph, &plan_a, seed ^ index as u64 ^ ((k as u64) << 32));
            let call_a = Call::new(&graph, &plan_a, call.op, kernel);
            let (rust_a, c_a) = run_both(&call_a, &start_a).map_err(|e| format!("{what}: {e}"))?;
            if let Some(d) = difference(&call_a, &rust_a, &c_a) {
                outcome.differences.push(format!("{what}, apart: {d}"));
            }
            let out_a = &rust_a.bytes()[base + xb..][..py.bytes];
            for (contract, shift) in layouts {
                // (b) the output `gap` bytes below its input (a stream in reverse: above it).
                let gap = shift.unsigned_abs();
                let (at_x, at_y) = if shift < 0 {
                    (base + gap, base)
                } else {
                    (base, base + gap)
                };
                let plan_b = relocated(&apart, (x, y), (at_x, at_y), arena_bytes);
                let mut start_b = start_a.clone();
                start_b.bytes_mut()[at_x..][..px.bytes]
                    .copy_from_slice(&start_a.bytes()[base..][..px.bytes]);
                let call_b = Call::new(&graph, &plan_b, call.op, kernel);
                let (rust_b, c_b) =
                    run_both(&call_b, &start_b).map_err(|e| format!("{what}: {e}"))?;
                if let Some(d) = difference(&call_b, &rust_b, &c_b) {
                    outcome.differences.push(format!("{what}, {contract}: {d}"));
                }
                // Rust's arena equals C's after each run (above): Rust's outputs stand for both.
                let out_b = &rust_b.bytes()[at_y..][..py.bytes];
                if let Some(at) = out_a.iter().zip(out_b).position(|(a, b)| a != b) {
                    let side = if shift > 0 { "above" } else { "below" };
                    outcome.differences.push(format!(
                        "{what}: {contract} {gap} bytes {side}, output byte {at}: {} overlapped \
                         vs {} apart",
                        out_b[at], out_a[at]
                    ));
                }
                outcome.overlapped.push(Overlapped {
                    module: kernel.module.to_string(),
                    function: kernel.function.to_string(),
                    contract,
                    gap,
                });
            }
        }
    }
    Ok(outcome)
}
