//! ADD_N (TFLM's add_n.cc): the element-wise sum of 2 or more inputs of one shape, float32
//! (summed in input order from 0, as reference `AddN`) and int8 (TFLM's quantized `AddN`, each
//! input offset, shifted left by 20 and halved, the sum rescaled once; the sum starts from the
//! input offset itself, as TFLM's does).
//!
//! [`add_n_f32()`] and [`add_n_s8()`] take the inputs as one variadic operand, a slice of `Src`;
//! the code generator calls them for more than 8 inputs. `add_nK_f32(arena, in_1, …, in_K,
//! output, p)` and `add_nK_s8` for K in 2..=8 take one operand per tensor, as CONCATENATION's
//! fixed-arity kernels: the generated code of the models that need no more keeps the form (and
//! the measured size and speed) it had before the variadic form. The output must not overlap an
//! input.

use crate::math::multiply_by_quantized_multiplier_smaller_than_one_exp as mbqm_small;
use crate::Src;

/// Constants of a float32 ADD_N.
#[derive(Clone, Copy, Debug)]
pub struct AddNF32 {
    /// Elements of each input (and of the output).
    pub len: usize,
}

/// Constants of an int8 ADD_N (TFLM's `OpData`: every input shares one quantization).
#[derive(Clone, Copy, Debug)]
pub struct AddNS8 {
    /// Elements of each input (and of the output).
    pub len: usize,
    /// Minus the inputs' zero point.
    pub input_offset: i32,
    /// `QuantizeMultiplierSmallerThanOneExp(1 / 2)`.
    pub input_multiplier: i32,
    /// Its shift (at most 0).
    pub input_shift: i32,
    /// `QuantizeMultiplierSmallerThanOneExp(2 input scale / (2^20 output scale))`.
    pub output_multiplier: i32,
    /// Its shift (at most 0).
    pub output_shift: i32,
    /// The output's zero point.
    pub output_offset: i32,
}

/// float32 ADD_N of `inputs`: `0 + in_1[i] + … + in_K[i]`, left to right.
fn sum_f32(arena: &mut [u8], inputs: &[Src], output: usize, p: &AddNF32) {
    for i in 0..p.len {
        let mut x = 0.0f32;
        for src in inputs {
            let b = &src.bytes(arena, 4 * (i + 1))[4 * i..];
            x += f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
        arena[output + 4 * i..output + 4 * i + 4].copy_from_slice(&x.to_le_bytes());
    }
}

/// int8 ADD_N of `inputs`, as TFLM's quantized `AddN` (no activation: the clamp is int8's range).
fn sum_s8(arena: &mut [u8], inputs: &[Src], output: usize, p: &AddNS8) {
    let scaled = |y: i32| mbqm_small(y.wrapping_mul(1 << 20), p.input_multiplier, p.input_shift);
    let start = scaled(p.input_offset);
    for i in 0..p.len {
        let mut x = start;
        for src in inputs {
            let v = i32::from(src.bytes(arena, i + 1)[i] as i8);
            x = x.wrapping_add(scaled(p.input_offset + v));
        }
        let out = mbqm_small(x, p.output_multiplier, p.output_shift) + p.output_offset;
        arena[output + i] = out.clamp(-128, 127) as i8 as u8;
    }
}

/// float32 ADD_N of `inputs`, any number of them (more than 8); see the module docs.
#[cfg_attr(target_os = "none", inline(never))]
pub fn add_n_f32(arena: &mut [u8], inputs: &[Src], output: usize, p: &AddNF32) {
    let p = crate::kernels::opaque(p);
    sum_f32(arena, inputs, output, p);
}

/// int8 ADD_N of `inputs`, any number of them (more than 8); see the module docs.
#[cfg_attr(target_os = "none", inline(never))]
pub fn add_n_s8(arena: &mut [u8], inputs: &[Src], output: usize, p: &AddNS8) {
    let p = crate::kernels::opaque(p);
    sum_s8(arena, inputs, output, p);
}

/// float32 ADD_N of 2 inputs; see the module docs.
#[cfg_attr(target_os = "none", inline(never))]
pub fn add_n2_f32(arena: &mut [u8], a: Src, b: Src, output: usize, p: &AddNF32) {
    let p = crate::kernels::opaque(p);
    sum_f32(arena, &[a, b], output, p);
}

/// int8 ADD_N of 2 inputs; see the module docs.
#[cfg_attr(target_os = "none", inline(never))]
pub fn add_n2_s8(arena: &mut [u8], a: Src, b: Src, output: usize, p: &AddNS8) {
    let p = crate::kernels::opaque(p);
    sum_s8(arena, &[a, b], output, p);
}

/// float32 ADD_N of 3 inputs; see the module docs.
#[cfg_attr(target_os = "none", inline(never))]
pub fn add_n3_f32(arena: &mut [u8], a: Src, b: Src, c: Src, output: usize, p: &AddNF32) {
    let p = crate::kernels::opaque(p);
    sum_f32(arena, &[a, b, c], output, p);
}

/// int8 ADD_N of 3 inputs; see the module docs.
#[cfg_attr(target_os = "none", inline(never))]
pub fn add_n3_s8(arena: &mut [u8], a: Src, b: Src, c: Src, output: usize, p: &AddNS8) {
    let p = crate::kernels::opaque(p);
    sum_s8(arena, &[a, b, c], output, p);
}

/// float32 ADD_N of 4 inputs; see the module docs.
#[cfg_attr(target_os = "none", inline(never))]
pub fn add_n4_f32(arena: &mut [u8], a: Src, b: Src, c: Src, d: Src, output: usize, p: &AddNF32) {
    let p = crate::kernels::opaque(p);
    sum_f32(arena, &[a, b, c, d], output, p);
}

/// int8 ADD_N of 4 inputs; see the module docs.
#[cfg_attr(target_os = "none", inline(never))]
pub fn add_n4_s8(arena: &mut [u8], a: Src, b: Src, c: Src, d: Src, output: usize, p: &AddNS8) {
    let p = crate::kernels::opaque(p);
    sum_s8(arena, &[a, b, c, d], output, p);
}

/// float32 ADD_N of 5 inputs; see the module docs.
#[cfg_attr(target_os = "none", inline(never))]
#[allow(clippy::too_many_arguments)]
pub fn add_n5_f32(
    arena: &mut [u8],
    a: Src,
    b: Src,
    c: Src,
    d: Src,
    e: Src,
    output: usize,
    p: &AddNF32,
) {
    let p = crate::kernels::opaque(p);
    sum_f32(arena, &[a, b, c, d, e], output, p);
}

/// int8 ADD_N of 5 inputs; see the module docs.
#[cfg_attr(target_os = "none", inline(never))]
#[allow(clippy::too_many_arguments)]
pub fn add_n5_s8(
    arena: &mut [u8],
    a: Src,
    b: Src,
    c: Src,
    d: Src,
    e: Src,
    output: usize,
    p: &AddNS8,
) {
    let p = crate::kernels::opaque(p);
    sum_s8(arena, &[a, b, c, d, e], output, p);
}

/// float32 ADD_N of 6 inputs; see the module docs.
#[cfg_attr(target_os = "none", inline(never))]
#[allow(clippy::too_many_arguments)]
pub fn add_n6_f32(
    arena: &mut [u8],
    a: Src,
    b: Src,
    c: Src,
    d: Src,
    e: Src,
    f: Src,
    output: usize,
    p: &AddNF32,
) {
    let p = crate::kernels::opaque(p);
    sum_f32(arena, &[a, b, c, d, e, f], output, p);
}

/// int8 ADD_N of 6 inputs; see the module docs.
#[cfg_attr(target_os = "none", inline(never))]
#[allow(clippy::too_many_arguments)]
pub fn add_n6_s8(
    arena: &mut [u8],
    a: Src,
    b: Src,
    c: Src,
    d: Src,
    e: Src,
    f: Src,
    output: usize,
    p: &AddNS8,
) {
    let p = crate::kernels::opaque(p);
    sum_s8(arena, &[a, b, c, d, e, f], output, p);
}

/// float32 ADD_N of 7 inputs; see the module docs.
#[cfg_attr(target_os = "none", inline(never))]
#[allow(clippy::too_many_arguments)]
pub fn add_n7_f32(
    arena: &mut [u8],
    a: Src,
    b: Src,
    c: Src,
    d: Src,
    e: Src,
    f: Src,
    g: Src,
    output: usize,
    p: &AddNF32,
) {
    let p = crate::kernels::opaque(p);
    sum_f32(arena, &[a, b, c, d, e, f, g], output, p);
}

/// int8 ADD_N of 7 inputs; see the module docs.
#[cfg_attr(target_os = "none", inline(never))]
#[allow(clippy::too_many_arguments)]
pub fn add_n7_s8(
    arena: &mut [u8],
    a: Src,
    b: Src,
    c: Src,
    d: Src,
    e: Src,
    f: Src,
    g: Src,
    output: usize,
    p: &AddNS8,
) {
    let p = crate::kernels::opaque(p);
    sum_s8(arena, &[a, b, c, d, e, f, g], output, p);
}

/// float32 ADD_N of 8 inputs; see the module docs.
#[cfg_attr(target_os = "none", inline(never))]
#[allow(clippy::too_many_arguments)]
pub fn add_n8_f32(
    arena: &mut [u8],
    a: Src,
    b: Src,
    c: Src,
    d: Src,
    e: Src,
    f: Src,
    g: Src,
    h: Src,
    output: usize,
    p: &AddNF32,
) {
    let p = crate::kernels::opaque(p);
    sum_f32(arena, &[a, b, c, d, e, f, g, h], output, p);
}

/// int8 ADD_N of 8 inputs; see the module docs.
#[cfg_attr(target_os = "none", inline(never))]
#[allow(clippy::too_many_arguments)]
pub fn add_n8_s8(
    arena: &mut [u8],
    a: Src,
    b: Src,
    c: Src,
    d: Src,
    e: Src,
    f: Src,
    g: Src,
    h: Src,
    output: usize,
    p: &AddNS8,
) {
    let p = crate::kernels::opaque(p);
    sum_s8(arena, &[a, b, c, d, e, f, g, h], output, p);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// int8 parameters of scales 0.5 in and out and zero points 0 (the real sum, in steps of
    /// 0.5), as TFLM's ADD_N rescales them.
    fn halves(len: usize) -> AddNS8 {
        AddNS8 {
            len,
            input_offset: 0,
            input_multiplier: 1 << 30,
            input_shift: 0,
            output_multiplier: 1 << 30,
            output_shift: -18,
            output_offset: 0,
        }
    }

    #[test]
    fn sums_floats_in_order() {
        let mut arena = [0u8; 36];
        for (i, v) in [1.0f32, -0.0, 2.5, 4.0, -0.0, -1.0, 0.5, 0.25, 8.0]
            .iter()
            .enumerate()
        {
            arena[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
        }
        let p = AddNF32 { len: 3 };
        let c = [0u8; 12];
        add_n3_f32(
            &mut arena,
            Src::Arena(0),
            Src::Arena(12),
            Src::Bytes(&c),
            24,
            &p,
        );
        let out: [f32; 3] = core::array::from_fn(|i| crate::bytes::read_f32(&arena[24..], i));
        assert_eq!(out, [5.0, 0.0, 1.5]);
        // 0 + -0 + -0 is +0, as TFLM's sum from 0.
        assert_eq!(out[1].to_bits(), 0);
    }

    #[test]
    fn sums_more_than_eight_inputs() {
        // Twelve float inputs (odd ones constant), one element each: 1 + 2 + ... + 12.
        let mut arena = [0u8; 4 * 13];
        let flash: [[u8; 4]; 12] = core::array::from_fn(|k| (k as f32 + 1.0).to_le_bytes());
        for k in (0..12).step_by(2) {
            arena[4 * k..4 * k + 4].copy_from_slice(&flash[k]);
        }
        let inputs: [Src; 12] = core::array::from_fn(|k| {
            if k % 2 == 0 {
                Src::Arena(4 * k)
            } else {
                Src::Bytes(&flash[k])
            }
        });
        add_n_f32(&mut arena, &inputs, 48, &AddNF32 { len: 1 });
        assert_eq!(crate::bytes::read_f32(&arena[48..], 0), 78.0);
        // Nine int8 inputs of 2 in steps of 0.5: 18, as add_n2_s8's arithmetic gives.
        let mut arena = [2u8; 10];
        let p = halves(1);
        let inputs: [Src; 9] = core::array::from_fn(Src::Arena);
        add_n_s8(&mut arena, &inputs, 9, &p);
        assert_eq!(arena[9], 18);
    }

    #[test]
    fn sums_int8_as_tflm() {
        // Scales 0.5 in and out, zero points 0: the real sum, in steps of 0.5.
        let mut arena = [10u8, 246, 100, 100, 0, 0];
        let p = halves(2);
        add_n2_s8(&mut arena, Src::Arena(0), Src::Arena(2), 4, &p);
        assert_eq!(&arena[4..], &[110, 90]);
    }
}
