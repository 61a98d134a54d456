//! Element types the kernels move, and the loops shared by element-wise kernels.
//!
//! [`map`] reads every element before it writes the output's element at the same index, so a
//! unary element-wise kernel may run in place (output offset == input offset); some kernels stage
//! their data through small stack buffers of [`CHUNK`] elements instead.

use crate::Src;

/// Elements per staged chunk: small enough for any stack, large enough to amortise the copies.
pub(crate) const CHUNK: usize = 64;

/// A little-endian element type stored in the arena.
pub(crate) trait Elem: Copy + Default {
    /// Bytes per element.
    const SIZE: usize;
    /// Reads one element from exactly `SIZE` bytes.
    fn read(bytes: &[u8]) -> Self;
    /// Writes one element into exactly `SIZE` bytes.
    fn write(self, bytes: &mut [u8]);

    /// Reads element `i` of the elements at `p`.
    ///
    /// # Safety
    /// Bytes `i * SIZE..(i + 1) * SIZE` from `p` are readable, and written by no live `&mut`.
    #[inline(always)]
    unsafe fn read_at(p: *const u8, i: usize) -> Self {
        // SAFETY: the caller's promise; the slice lives for this read alone.
        Self::read(unsafe { core::slice::from_raw_parts(p.add(i * Self::SIZE), Self::SIZE) })
    }

    /// Writes element `i` of the elements at `p`.
    ///
    /// # Safety
    /// Bytes `i * SIZE..(i + 1) * SIZE` from `p` are writable, and borrowed by no live reference.
    #[inline(always)]
    unsafe fn write_at(self, p: *mut u8, i: usize) {
        // SAFETY: the caller's promise; the slice lives for this write alone.
        self.write(unsafe { core::slice::from_raw_parts_mut(p.add(i * Self::SIZE), Self::SIZE) })
    }
}

impl Elem for i8 {
    const SIZE: usize = 1;
    #[inline(always)]
    fn read(bytes: &[u8]) -> Self {
        bytes[0] as i8
    }
    #[inline(always)]
    fn write(self, bytes: &mut [u8]) {
        bytes[0] = self as u8;
    }
}

impl Elem for u8 {
    const SIZE: usize = 1;
    #[inline(always)]
    fn read(bytes: &[u8]) -> Self {
        bytes[0]
    }
    #[inline(always)]
    fn write(self, bytes: &mut [u8]) {
        bytes[0] = self;
    }
}

impl Elem for i16 {
    const SIZE: usize = 2;
    // One halfword or word access (the byte-wise default compiled to byte loads and an `orr`).
    #[inline(always)]
    unsafe fn read_at(p: *const u8, i: usize) -> Self {
        // SAFETY: the caller's promise (`read_unaligned`: any alignment).
        i16::from_le(unsafe { p.add(i * 2).cast::<i16>().read_unaligned() })
    }
    #[inline(always)]
    unsafe fn write_at(self, p: *mut u8, i: usize) {
        // SAFETY: the caller's promise (`write_unaligned`: any alignment).
        unsafe { p.add(i * 2).cast::<i16>().write_unaligned(self.to_le()) }
    }
    #[inline(always)]
    fn read(bytes: &[u8]) -> Self {
        i16::from_le_bytes([bytes[0], bytes[1]])
    }
    #[inline(always)]
    fn write(self, bytes: &mut [u8]) {
        bytes.copy_from_slice(&self.to_le_bytes());
    }
}

impl Elem for i32 {
    const SIZE: usize = 4;
    // One halfword or word access (the byte-wise default compiled to byte loads and an `orr`).
    #[inline(always)]
    unsafe fn read_at(p: *const u8, i: usize) -> Self {
        // SAFETY: the caller's promise (`read_unaligned`: any alignment).
        i32::from_le(unsafe { p.add(i * 4).cast::<i32>().read_unaligned() })
    }
    #[inline(always)]
    unsafe fn write_at(self, p: *mut u8, i: usize) {
        // SAFETY: the caller's promise (`write_unaligned`: any alignment).
        unsafe { p.add(i * 4).cast::<i32>().write_unaligned(self.to_le()) }
    }
    #[inline(always)]
    fn read(bytes: &[u8]) -> Self {
        i32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
    }
    #[inline(always)]
    fn write(self, bytes: &mut [u8]) {
        bytes.copy_from_slice(&self.to_le_bytes());
    }
}

impl Elem for i64 {
    const SIZE: usize = 8;
    #[inline(always)]
    fn read(bytes: &[u8]) -> Self {
        let mut b = [0u8; 8];
        b.copy_from_slice(&bytes[..8]);
        i64::from_le_bytes(b)
    }
    #[inline(always)]
    fn write(self, bytes: &mut [u8]) {
        bytes.copy_from_slice(&self.to_le_bytes());
    }
}

impl Elem for f32 {
    const SIZE: usize = 4;
    // One word access, as int32's.
    #[inline(always)]
    unsafe fn read_at(p: *const u8, i: usize) -> Self {
        // SAFETY: the caller's promise (`read_unaligned`: any alignment).
        f32::from_bits(u32::from_le(unsafe {
            p.add(i * 4).cast::<u32>().read_unaligned()
        }))
    }
    #[inline(always)]
    unsafe fn write_at(self, p: *mut u8, i: usize) {
        // SAFETY: the caller's promise (`write_unaligned`: any alignment).
        unsafe {
            p.add(i * 4)
                .cast::<u32>()
                .write_unaligned(self.to_bits().to_le())
        }
    }
    #[inline(always)]
    fn read(bytes: &[u8]) -> Self {
        f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
    }
    #[inline(always)]
    fn write(self, bytes: &mut [u8]) {
        bytes.copy_from_slice(&self.to_le_bytes());
    }
}

/// Reads `dst.len()` consecutive elements of `src`, starting at element `start`.
#[inline(always)]
pub(crate) fn load<T: Elem>(arena: &[u8], src: Src, start: usize, dst: &mut [T]) {
    let (from, to) = (start * T::SIZE, (start + dst.len()) * T::SIZE);
    let bytes = match src {
        Src::Arena(offset) => &arena[offset + from..offset + to],
        Src::Bytes(bytes) => &bytes[from..to],
    };
    for (d, c) in dst.iter_mut().zip(bytes.chunks_exact(T::SIZE)) {
        *d = T::read(c);
    }
}

/// `output[i] = f(input[i])` for `len` elements, in order, each element read before it is written
/// and no later one: the output may lie at the input's offset (in place) when its elements are no
/// larger than the input's. One loop for every placement, through pointers whose bounds are checked once per call:
/// paths of slices (apart, in place, and staged through the stack chunk by chunk for any other
/// overlap) inlined `f` three times (an int16 requantization took 2.4 KB of Cortex-M4 code, its C
/// kernel 180 bytes), and the staged loop for every call cost an int16 LEAKY_RELU about a quarter
/// more instructions.
#[inline(always)]
pub(crate) fn map<I: Elem, O: Elem>(
    arena: &mut [u8],
    input: usize,
    output: usize,
    len: usize,
    mut f: impl FnMut(I) -> O,
) {
    let arena_len = arena.len();
    let within = |start: usize, size: usize| {
        len.checked_mul(size)
            .and_then(|bytes| start.checked_add(bytes))
            .is_some_and(|end| end <= arena_len)
    };
    assert!(
        within(input, I::SIZE) && within(output, O::SIZE),
        "element-wise tensor out of the arena"
    );
    let base = arena.as_mut_ptr();
    let (x, y) = (
        base.wrapping_add(input).cast_const(),
        base.wrapping_add(output),
    );
    for i in 0..len {
        // SAFETY: elements `0..len` at `input` and at `output` lie within the arena (`within`
        // above); `x` and `y` derive from its one `&mut` borrow, which nothing else uses here (so
        // the compiler also knows the stores leave `f`'s parameters alone).
        unsafe { f(I::read_at(x, i)).write_at(y, i) };
    }
}

/// `dst.copy_from_slice(src)` (equally long), for long runs (PAD's rows). On ARMv7E-M, when both
/// are word-aligned, 32 bytes per step by `ldm`/`stm` of four registers twice (the compiler's
/// `memcpy` moves one word per step); the rest, and unaligned runs, by `copy_from_slice`.
#[inline(always)]
pub(crate) fn copy_run(dst: &mut [u8], src: &[u8]) {
    assert!(dst.len() == src.len(), "copied runs not equally long");
    #[cfg(tinyaot_dsp)]
    {
        let blocks = dst.len() / 32;
        let aligned = (dst.as_ptr() as usize | src.as_ptr() as usize).is_multiple_of(4);
        if aligned && blocks > 0 {
            let (mut d, mut s) = (dst.as_mut_ptr(), src.as_ptr());
            // SAFETY: `blocks` >= 1 steps each read 32 bytes of `src` and write 32 bytes of `dst`,
            // in order from their starts: blocks * 32 <= len of both (equal, asserted). Both are
            // word-aligned (checked), as `ldm`/`stm` need; `src` and `dst` are a shared and a
            // mutable slice, so they do not overlap.
            unsafe {
                core::arch::asm!(
                    "2:",
                    "ldmia {s}!, {{r2, r3, r4, r5}}",
                    "stmia {d}!, {{r2, r3, r4, r5}}",
                    "ldmia {s}!, {{r2, r3, r4, r5}}",
                    "stmia {d}!, {{r2, r3, r4, r5}}",
                    "subs {n}, {n}, #1",
                    "bne 2b",
                    s = inout(reg) s,
                    d = inout(reg) d,
                    n = inout(reg) blocks => _,
                    out("r2") _,
                    out("r3") _,
                    out("r4") _,
                    out("r5") _,
                    options(nostack),
                );
            }
            // The pointers are spent.
            let _ = (d, s);
            let done = blocks * 32;
            dst[done..].copy_from_slice(&src[done..]);
            return;
        }
    }
    dst.copy_from_slice(src);
}

/// Fills `out` with copies of the element `pattern` (`out.len()` a multiple of its length).
#[inline(always)]
pub(crate) fn fill(out: &mut [u8], pattern: &[u8]) {
    if pattern.len() == 1 || pattern.iter().all(|&b| b == pattern[0]) {
        out.fill(pattern[0]);
        return;
    }
    // Copy a 64-byte block of the pattern at a time.
    let mut block = [0u8; 64];
    let per_block = block.len() / pattern.len() * pattern.len();
    for c in block[..per_block].chunks_exact_mut(pattern.len()) {
        c.copy_from_slice(pattern);
    }
    let mut blocks = out.chunks_exact_mut(per_block);
    for b in &mut blocks {
        b.copy_from_slice(&block[..per_block]);
    }
    let rest = blocks.into_remainder();
    let n = rest.len();
    rest.copy_from_slice(&block[..n]);
}

/// Advances the multi-index `index` over `shape` in C order (last dimension fastest); false once
/// every index has been visited.
#[inline(always)]
pub(crate) fn next_index(index: &mut [usize], shape: &[usize]) -> bool {
    // The dimensions both slices have (callers pass equal lengths): no bounds checks in the loop.
    let shape = &shape[..shape.len().min(index.len())];
    for d in (0..shape.len()).rev() {
        index[d] += 1;
        if index[d] < shape[d] {
            return true;
        }
        index[d] = 0;
    }
    false
}

/// [`next_index`] with its loop kept rolled ([`keep_rolled`](super::keep_rolled)), for loops
/// that advance the index once per row (the broadcast paths), where the compiler's four-fold
/// unrolling of it was only flash; the walks that advance it per element (the reductions) keep
/// the unrolled one, measurably faster there (36 ticks of mobilenet_pruned's MEAN on the M4).
#[inline(always)]
pub(crate) fn next_row_index(index: &mut [usize], shape: &[usize]) -> bool {
    let shape = &shape[..shape.len().min(index.len())];
    for d in (0..shape.len()).rev() {
        // Most rows advance the last index alone.
        super::keep_rolled();
        index[d] += 1;
        if index[d] < shape[d] {
            return true;
        }
        index[d] = 0;
    }
    false
}
