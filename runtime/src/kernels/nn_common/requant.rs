//! The per-channel requantization that ends CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED: bias,
//! TFLM's `MultiplyByQuantizedMultiplier` (double rounding), output zero point, activation clamp;
//! and its 64-bit variant for int16 activations ([`requantize_16x8`]).

use crate::kernels::Within;

/// One kernel call's requantization parameters, sliced to its channels once so that the per-output
/// work has no bounds checks to repeat.
pub(crate) struct Requantizer<'a> {
    bias: Option<&'a [i32]>,
    multipliers: &'a [i32],
    shifts: &'a [i8],
    zero_point: i32,
    min: i32,
    max: i32,
    /// Takes [`Requantizer::apply_narrow`]: see [`Requantizer::narrow`].
    narrow: bool,
}

/// The start of every output of the requantization assembly: sum register `$acc` doubled,
/// multiplied by `$m` with rounding (`smmulr`), rounded toward zero and shifted right by the low
/// byte of `$s` (`!shift`, the rounding division's exponent less one); the variants differ in
/// how the zero point joins and how the result is clamped.
#[cfg(tinyaot_dsp)]
macro_rules! requantize_start {
    ($acc:literal, $m:literal, $s:literal) => {
        concat!(
            "lsl {",
            $acc,
            "}, {",
            $acc,
            "}, #1\n",
            "smmulr {",
            $acc,
            "}, {",
            $acc,
            "}, {",
            $m,
            "}\n",
            "add {",
            $acc,
            "}, {",
            $acc,
            "}, {",
            $acc,
            "}, asr #31\n",
            "asr {",
            $acc,
            "}, {",
            $acc,
            "}, {",
            $s,
            "}\n",
        )
    };
}

/// One output of the requantization assembly ([`Requantizer::run`], [`Requantizer::run_pairs`]):
/// `apply_narrow_int8` of sum register `$acc` with multiplier `$m` and `!shift` in `$s` (the
/// rounding division's exponent less one), stored through `$out` (advanced): `smmulr` of the
/// doubled sum, the round toward zero, the shift, the zero point merged with the final halving,
/// saturated to int8.
#[cfg(tinyaot_dsp)]
macro_rules! requantize_int8 {
    ($acc:literal, $m:literal, $s:literal, $out:literal) => {
        concat!(
            requantize_start!($acc, $m, $s),
            "add {",
            $acc,
            "}, {",
            $acc,
            "}, {zp}\n",
            "ssat {",
            $acc,
            "}, #8, {",
            $acc,
            "}, asr #1\n",
            "strb {",
            $acc,
            "}, [{",
            $out,
            "}], #1",
        )
    };
}

/// One output of the requantization assembly for an activation range narrower than int8 (`{pk}`
/// and `{top}` from [`Requantizer::clamp_operands`]): as [`requantize_int8!`] up to the shift,
/// then `h - min` clamped below at 0 by `usat #31` (the zero point, less `min`, merged with the
/// final halving as before), `R - y` clamped below at 0 the same way (`R = max - min`, the packed
/// operand's high half), and `max` less that: `min(max(h, min), max)` in three more instructions
/// than the int8 clamp and no comparison (emulated and checked against the reference by the test
/// `the_clamp_by_saturation_matches_the_reference`).
#[cfg(tinyaot_dsp)]
macro_rules! requantize_clamped {
    ($acc:literal, $m:literal, $s:literal, $out:literal) => {
        concat!(
            requantize_start!($acc, $m, $s),
            "sxtah {",
            $acc,
            "}, {",
            $acc,
            "}, {pk}\n",
            "usat {",
            $acc,
            "}, #31, {",
            $acc,
            "}, asr #1\n",
            "rsb {",
            $acc,
            "}, {",
            $acc,
            "}, {pk}, asr #16\n",
            "usat {",
            $acc,
            "}, #31, {",
            $acc,
            "}\n",
            "rsb {",
            $acc,
            "}, {",
            $acc,
            "}, {top}\n",
            "strb {",
            $acc,
            "}, [{",
            $out,
            "}], #1",
        )
    };
}

/// One output of the requantization assembly for an activation range `min..=127` (`{pk}` from
/// [`Requantizer::relu_operand`]: ReLU's usual range): as [`requantize_clamped!`] up to `h - min`
/// clamped below at 0, then `min` added back (the packed operand's high half) and saturated to
/// int8: one instruction less than the general clamp (checked by the test
/// `the_clamp_by_saturation_matches_the_reference`).
#[cfg(tinyaot_dsp)]
macro_rules! requantize_relu {
    ($acc:literal, $m:literal, $s:literal, $out:literal) => {
        concat!(
            requantize_start!($acc, $m, $s),
            "sxtah {",
            $acc,
            "}, {",
            $acc,
            "}, {pk}\n",
            "usat {",
            $acc,
            "}, #31, {",
            $acc,
            "}, asr #1\n",
            "sxtah {",
            $acc,
            "}, {",
            $acc,
            "}, {pk}, ror #16\n",
            "ssat {",
            $acc,
            "}, #8, {",
            $acc,
            "}\n",
            "strb {",
            $acc,
            "}, [{",
            $out,
            "}], #1",
        )
    };
}

/// The start of a step of two channels in the requantization assembly: their multipliers into
/// `{m0}`, `{m1}` (one `ldrd`) and their shifts into `{s0}`, `{s1}` (one `ldrh`), each inverted
/// (`mvn`) so that its low byte is the rounding division's exponent less one (the shifts are right
/// shifts on the narrow path), the byte `asr` by register reads.
#[cfg(tinyaot_dsp)]
macro_rules! channel_pair {
    () => {
        concat!(
            "ldrd {m0}, {m1}, [{mp}], #8\n",
            "ldrh {s0}, [{shp}], #2\n",
            "mvn {s1}, {s0}, lsr #8\n",
            "mvn {s0}, {s0}",
        )
    };
}

/// The requantization loops in assembly, written once: `$out` is the per-output macro
/// ([`requantize_int8!`], [`requantize_clamped!`] or [`requantize_relu!`]), the rest the loop's
/// pointers (read and advanced), its end and the per-output macro's own operands (`zp`, `pk`,
/// `top`), in the order the hand-written loops took them so that the register allocation, and so
/// every instruction, is theirs. Each step takes two channels (their multipliers and shifts once,
/// [`channel_pair!`]):
/// - `one_pixel`: their two sums, to `o` ([`Requantizer::run`]), until `o` reaches `end`;
/// - `two_pixels`: their sums of two pixels (the paired layout), to `o0` and `o1`
///   ([`Requantizer::run_pairs`]), until `o0` reaches `end`;
/// - `two_pixels_end_on_stack`: the same with the end `o0 + count` kept on the stack (the
///   clamped loop needs 13 registers), pushed and popped within the block.
///
/// Inside `unsafe`: the caller's `// SAFETY:` says why the pointers stay within their slices.
#[cfg(tinyaot_dsp)]
macro_rules! requantize_loop {
    (one_pixel $out:ident; ($mp:ident, $shp:ident, $sp:ident, $o:ident), $end:expr; $($operands:tt)*) => {
        requantize_loop!(
            @end_in_register step!(one_pixel, $out), "cmp {o}, {end}";
            ($mp, $shp, $sp, o = $o), $end; $($operands)*
        )
    };
    (
        two_pixels $out:ident;
        ($mp:ident, $shp:ident, $sp:ident, $o0:ident, $o1:ident), $end:expr;
        $($operands:tt)*
    ) => {
        requantize_loop!(
            @end_in_register step!(two_pixels, $out), "cmp {o0}, {end}";
            ($mp, $shp, $sp, o0 = $o0, o1 = $o1), $end; $($operands)*
        )
    };
    (
        @end_in_register $step:expr, $cmp:literal;
        ($mp:ident, $shp:ident, $sp:ident, $($o:ident = $ov:ident),+), $end:expr;
        $($operands:tt)*
    ) => {
        core::arch::asm!(
            "2:",
            $step,
            $cmp,
            "bne 2b",
            mp = inout(reg) $mp,
            shp = inout(reg) $shp,
            sums = inout(reg) $sp,
            $($o = inout(reg) $ov,)+
            end = in(reg) $end,
            $($operands)*
            m0 = out(reg) _,
            m1 = out(reg) _,
            s0 = out(reg) _,
            s1 = out(reg) _,
            a = out(reg) _,
            b = out(reg) _,
            options(nostack),
        )
    };
    (
        two_pixels_end_on_stack $out:ident;
        ($mp:ident, $shp:ident, $sp:ident, $o0:ident, $o1:ident), $count:expr;
        $($operands:tt)*
    ) => {
        core::arch::asm!(
            "add {a}, {o0}, {a}",
            "push {{{a}}}",
            "2:",
            step!(two_pixels, $out),
            "ldr {a}, [sp]",
            "cmp {o0}, {a}",
            "bne 2b",
            "add sp, sp, #4",
            mp = inout(reg) $mp,
            shp = inout(reg) $shp,
            sums = inout(reg) $sp,
            o0 = inout(reg) $o0,
            o1 = inout(reg) $o1,
            $($operands)*
            m0 = out(reg) _,
            m1 = out(reg) _,
            s0 = out(reg) _,
            s1 = out(reg) _,
            a = inout(reg) $count => _,
            b = out(reg) _,
        )
    };
}

/// One step of [`requantize_loop!`]: the channel pair, then per pixel its two sums (`ldrd`)
/// requantized by `$out` to `o` (`one_pixel`), or to `o0`, then to `o1` (`two_pixels`).
#[cfg(tinyaot_dsp)]
macro_rules! step {
    (one_pixel, $out:ident) => {
        concat!(channel_pair!(), "\n", step!(@sums $out, "o"))
    };
    (two_pixels, $out:ident) => {
        concat!(
            channel_pair!(),
            "\n",
            step!(@sums $out, "o0"),
            "\n",
            step!(@sums $out, "o1"),
        )
    };
    (@sums $out:ident, $o:literal) => {
        concat!(
            "ldrd {a}, {b}, [{sums}], #8\n",
            $out!("a", "m0", "s0", $o),
            "\n",
            $out!("b", "m1", "s1", $o),
        )
    };
}

impl<'a> Requantizer<'a> {
    /// Parameters for `channels` channels. `multipliers` are non-negative Q31 values (as
    /// `QuantizeMultiplier` gives), `shifts` within `-31..=31`. Panics if a slice is too short.
    #[inline(always)]
    pub(crate) fn new(
        channels: usize,
        bias: Option<&'a [i32]>,
        multipliers: &'a [i32],
        shifts: &'a [i8],
        zero_point: i32,
        (min, max): (i32, i32),
    ) -> Self {
        Requantizer {
            bias: bias.map(|b| b.at(..channels)),
            multipliers: multipliers.at(..channels),
            shifts: shifts.at(..channels),
            zero_point,
            min,
            max,
            narrow: false,
        }
    }

    /// A requantizer for sums that start from the bias (the kernels that gather runs of sums):
    /// none of its own, the short path when `narrow` says so (see [`narrow`](Self::narrow)).
    #[inline(always)]
    pub(crate) fn for_biased_sums(
        channels: usize,
        (multipliers, shifts): (&'a [i32], &'a [i8]),
        zero_point: i32,
        range: (i32, i32),
        narrow: bool,
    ) -> Self {
        Self::new(channels, None, multipliers, shifts, zero_point, range).narrow(narrow)
    }

    /// The same requantizer, taking the short path when `narrow` is true: the caller's parameter
    /// struct says so after the generation-time check that every shift is a right shift
    /// (`shift <= -1`) and that `|acc + bias| < 2^30` for every possible input.
    #[inline(always)]
    pub(crate) fn narrow(self, narrow: bool) -> Self {
        Requantizer { narrow, ..self }
    }

    /// The int8 output (as a byte) of channel `c` for accumulator `acc`.
    #[inline(always)]
    pub(crate) fn one(&self, c: usize, acc: i32) -> u8 {
        let bias = self.bias.map_or(0, |b| b[c]);
        self.apply(acc.wrapping_add(bias), self.multipliers[c], self.shifts[c])
    }

    /// The outputs of channels `c0..c0 + 4`.
    #[inline(always)]
    pub(crate) fn four(&self, c0: usize, acc: [i32; 4]) -> [u8; 4] {
        // As arrays: one bounds check per slice, none per element.
        let multipliers: &[i32; 4] = self.multipliers[c0..c0 + 4].try_into().expect("4");
        let shifts: &[i8; 4] = self.shifts[c0..c0 + 4].try_into().expect("4");
        let bias = self
            .bias
            .map(|b| -> &[i32; 4] { b[c0..c0 + 4].try_into().expect("4") });
        // Spelled out, with the `#[inline(always)]` `apply`: through `core::array::from_fn` or a
        // closure the compiler may emit a call per output, which costs as much as the arithmetic.
        let bias = |k: usize| bias.map_or(0, |b| b[k]);
        [
            self.apply(acc[0].wrapping_add(bias(0)), multipliers[0], shifts[0]),
            self.apply(acc[1].wrapping_add(bias(1)), multipliers[1], shifts[1]),
            self.apply(acc[2].wrapping_add(bias(2)), multipliers[2], shifts[2]),
            self.apply(acc[3].wrapping_add(bias(3)), multipliers[3], shifts[3]),
        ]
    }

    /// The outputs of channels `c0..c0 + sums.len()`, written to `out` (as long as `sums`), for
    /// sums that already include the bias: the kernels that requantize runs start their sums from
    /// it (so this requantizer has none, checked). The path is chosen once, outside the loop,
    /// which then keeps its pointers and the output parameters in registers: kernels gather a run
    /// of sums first and requantize them here, rather than interleaving the two loops' live
    /// values (measured with `cargo xtask mcu --profile`). Not inlined on bare metal, so that
    /// the loop has the registers of its own frame (a call per run of channels, not per output).
    #[cfg_attr(target_os = "none", inline(never))]
    pub(crate) fn run(&self, c0: usize, sums: &[i32], out: &mut [u8]) {
        assert!(
            self.bias.is_none(),
            "a run's sums include the bias: its requantizer has none"
        );
        let n = sums.len();
        let out = out.at_mut(..n);
        let multipliers = self.multipliers.at(c0..c0 + n);
        let shifts = self.shifts.at(c0..c0 + n);
        let inputs = sums.iter().zip(multipliers).zip(shifts);
        let outputs = out.iter_mut();
        // Helium: four channels per vector.
        #[cfg(tinyaot_mve)]
        if self.narrow {
            let operands = (self.zero_point, self.min, self.max);
            return super::mve::requantize_narrow(sums, multipliers, shifts, out, operands);
        }
        #[cfg(tinyaot_dsp)]
        if self.narrow {
            // Pairs of channels in assembly, then an odd last one.
            let done = self.run_narrow_dsp(sums, multipliers, shifts, out);
            if done < n {
                out[n - 1] = self.apply_narrow(sums[n - 1], multipliers[n - 1], shifts[n - 1]);
            }
        } else {
            for (((&a, &m), &s), o) in inputs.zip(outputs) {
                *o = self.apply_wide(a, m, s);
            }
        }
        #[cfg(not(tinyaot_dsp))]
        if self.narrow_int8() {
            // No activation to clamp to beyond int8 itself (the usual case: ReLU and ReLU6 fold
            // into the output's quantization): the clamp to constants is one saturation (`ssat`
            // on ARM) instead of two comparisons and selects.
            for (((&a, &m), &s), o) in inputs.zip(outputs) {
                *o = self.apply_narrow_int8(a, m, s);
            }
        } else if self.narrow {
            for (((&a, &m), &s), o) in inputs.zip(outputs) {
                *o = self.apply_narrow(a, m, s);
            }
        } else {
            for (((&a, &m), &s), o) in inputs.zip(outputs) {
                *o = self.apply(a, m, s);
            }
        }
    }

    /// Whether the short path applies with no activation to clamp to beyond int8 itself (the
    /// usual case: ReLU and ReLU6 fold into the output's quantization), so that the clamp is one
    /// saturation.
    #[inline(always)]
    fn narrow_int8(&self) -> bool {
        self.narrow && (self.min, self.max) == (-128, 127)
    }

    /// The operand of [`requantize_relu!`]: as [`clamp_operands`](Self::clamp_operands)' low
    /// half, and the range's low end in the high half.
    #[cfg(any(tinyaot_dsp, test))]
    #[inline(always)]
    fn relu_operand(&self) -> u32 {
        halving_operand(self.zero_point, self.min) | u32::from(self.min as u16) << 16
    }

    /// Whether the narrow path's activation range is `min..=127` with `min` above -128 (ReLU's
    /// usual range), which [`requantize_relu!`] takes.
    #[cfg(any(tinyaot_dsp, test))]
    #[inline(always)]
    fn narrow_relu(&self) -> bool {
        self.narrow && self.max == 127 && self.min > -128
    }

    /// The operands of [`requantize_clamped!`]: [`clamp_operand`] of this requantizer's zero point
    /// and range, and `max`.
    #[cfg(any(tinyaot_dsp, test))]
    #[inline(always)]
    fn clamp_operands(&self) -> (u32, i32) {
        (
            clamp_operand(self.zero_point, (self.min, self.max)),
            self.max,
        )
    }

    /// [`run`](Self::run)'s narrow path for the channels in pairs, in assembly: per two
    /// channels, their multipliers (`ldrd`), shifts (`ldrh`, each inverted to the rounding
    /// division's exponent less one), sums (`ldrd`) and seven instructions per output for the
    /// int8 activation range (10.5 per output where the compiler's loop took 13), ten for a
    /// narrower one (the compiler's loop took 20). Returns how many outputs it wrote (all but an
    /// odd last one). The slices are equally long (cut by the caller).
    #[cfg(tinyaot_dsp)]
    #[inline(always)]
    fn run_narrow_dsp(
        &self,
        sums: &[i32],
        multipliers: &[i32],
        shifts: &[i8],
        out: &mut [u8],
    ) -> usize {
        let n = out.len() - out.len() % 2;
        assert!(
            sums.len() >= n && multipliers.len() >= n && shifts.len() >= n,
            "requantization run shorter than its output"
        );
        if n == 0 {
            return 0;
        }
        let (mut mp, mut shp, mut sp) = (multipliers.as_ptr(), shifts.as_ptr(), sums.as_ptr());
        let mut o = out.as_mut_ptr();
        let end = o.wrapping_add(n);
        if self.narrow_int8() {
            // SAFETY: each iteration reads two multipliers, two shifts and two sums and writes
            // two bytes, n / 2 >= 1 times: exactly the first n of each (asserted), with `end` n
            // bytes past `out`. `ldrd` needs word alignment (`i32` slices); `ldrh` none on
            // ARMv7-M. The shifts are right shifts (the narrow path's generation-time check), so
            // `!shift` is the rounding division's exponent less one, 0 to 30, in the byte `asr`
            // reads.
            unsafe {
                requantize_loop!(
                    one_pixel requantize_int8; (mp, shp, sp, o), end;
                    zp = in(reg) 1 + 2 * self.zero_point,
                );
            }
        } else {
            let (pk, top) = self.clamp_operands();
            // SAFETY: as above (the loop reads and writes the same, only its arithmetic differs).
            unsafe {
                requantize_loop!(
                    one_pixel requantize_clamped; (mp, shp, sp, o), end;
                    pk = in(reg) pk,
                    top = in(reg) top,
                );
            }
        }
        // The pointers are spent.
        let _ = (mp, shp, sp, o);
        n
    }

    /// The outputs of channels `c0..c0 + out0.len()` (an even count) of two pixels, written to
    /// `out0` and `out1`, from sums in the paired layout (for each two channels `c, c + 1`:
    /// `[pixel 0 c, pixel 0 c + 1, pixel 1 c, pixel 1 c + 1]`) that already include the bias, as
    /// [`run`](Self::run): each channel's multiplier and shift are loaded once for both pixels.
    #[cfg_attr(target_os = "none", inline(never))]
    pub(crate) fn run_pairs(&self, c0: usize, sums: &[i32], out0: &mut [u8], out1: &mut [u8]) {
        assert!(
            self.bias.is_none(),
            "a run's sums include the bias: its requantizer has none"
        );
        let n = out0.len();
        assert!(n.is_multiple_of(2), "paired run of an odd channel count");
        let (sums, out1) = (sums.at(..2 * n), out1.at_mut(..n));
        let multipliers = self.multipliers.at(c0..c0 + n);
        let shifts = self.shifts.at(c0..c0 + n);
        // The paths below: the assembly's (every narrow requantizer) on ARMv7E-M, the int8
        // range's elsewhere.
        let fast = if cfg!(tinyaot_dsp) {
            self.narrow
        } else {
            self.narrow_int8()
        };
        if !fast {
            // The rarer paths: two call sites of `apply`, not four (code size).
            for (j, (o0, o1)) in out0.iter_mut().zip(out1.iter_mut()).enumerate() {
                let (m, sh, at) = (multipliers[j], shifts[j], (j / 2) * 4 + j % 2);
                // On ARMv7E-M every narrow requantizer took the assembly.
                if cfg!(tinyaot_dsp) {
                    *o0 = self.apply_wide(sums[at], m, sh);
                    *o1 = self.apply_wide(sums[at + 2], m, sh);
                } else {
                    *o0 = self.apply(sums[at], m, sh);
                    *o1 = self.apply(sums[at + 2], m, sh);
                }
            }
            return;
        }
        #[cfg(tinyaot_dsp)]
        if n > 0 {
            let (mut mp, mut shp, mut sp) = (multipliers.as_ptr(), shifts.as_ptr(), sums.as_ptr());
            let (mut o0, mut o1) = (out0.as_mut_ptr(), out1.as_mut_ptr());
            let end = o0.wrapping_add(n);
            if self.narrow_int8() {
                // SAFETY: for each two channels (n is even, asserted) the loop reads two
                // multipliers, two shifts and four sums and writes one byte of each output per
                // channel: exactly the n multipliers and shifts, 2 n sums and n bytes of each
                // output the slices hold (cut or asserted above), in order, with `end` one past
                // out0. `ldrd` needs word alignment (`i32` slices); `ldrh` needs none on ARMv7-M.
                // The shifts are right shifts (the narrow path's generation-time check), so
                // `!shift` is the rounding division's exponent less one, 0 to 30, in the byte `asr`
                // reads. In assembly: the compiler's loop re-masked each shift and spilled (51
                // instructions for four outputs); this is 36.
                unsafe {
                    requantize_loop!(
                        two_pixels requantize_int8; (mp, shp, sp, o0, o1), end;
                        zp = in(reg) 1 + 2 * self.zero_point,
                    );
                }
            } else if self.narrow_relu() {
                let pk = self.relu_operand();
                // SAFETY: as above (the loop reads and writes the same, only its arithmetic
                // differs).
                unsafe {
                    requantize_loop!(
                        two_pixels requantize_relu; (mp, shp, sp, o0, o1), end;
                        pk = in(reg) pk,
                    );
                }
            } else {
                let (pk, top) = self.clamp_operands();
                // SAFETY: as above, with the output's end kept on the stack (the loop needs 13
                // registers), pushed and popped within the block.
                unsafe {
                    requantize_loop!(
                        two_pixels_end_on_stack requantize_clamped; (mp, shp, sp, o0, o1), n;
                        pk = in(reg) pk,
                        top = in(reg) top,
                    );
                }
            }
            // The pointers are spent.
            let _ = (mp, shp, sp, o0, o1);
        }
        #[cfg(not(tinyaot_dsp))]
        let rows = sums
            .chunks_exact(4)
            .zip(multipliers.chunks_exact(2).zip(shifts.chunks_exact(2)))
            .zip(out0.chunks_exact_mut(2).zip(out1.chunks_exact_mut(2)));
        #[cfg(not(tinyaot_dsp))]
        for ((s, (m, sh)), (o0, o1)) in rows {
            o0[0] = self.apply_narrow_int8(s[0], m[0], sh[0]);
            o0[1] = self.apply_narrow_int8(s[1], m[1], sh[1]);
            o1[0] = self.apply_narrow_int8(s[2], m[0], sh[0]);
            o1[1] = self.apply_narrow_int8(s[3], m[1], sh[1]);
        }
    }

    /// `MultiplyByQuantizedMultiplier(acc, multiplier, shift) + zero_point`, clamped. The same bits
    /// as [`crate::math::multiply_by_quantized_multiplier`] for a non-negative multiplier, in fewer
    /// instructions (see [`divide_high_by_pot`]); a non-negative multiplier also rules out the one
    /// saturating case of the doubling high multiply (`i32::MIN * i32::MIN`), so it is left out.
    #[inline(always)]
    fn apply(&self, acc: i32, multiplier: i32, shift: i8) -> u8 {
        if self.narrow {
            return self.apply_narrow(acc, multiplier, shift);
        }
        self.apply_wide(acc, multiplier, shift)
    }

    /// [`apply`](Self::apply) off the short path. Every model measured takes the short path, so
    /// on bare metal this is one shared copy (code size), not one inlined per call site.
    #[cfg_attr(target_os = "none", inline(never))]
    fn apply_wide(&self, acc: i32, multiplier: i32, shift: i8) -> u8 {
        // `max(shift, 0)` and `max(-shift, 0)` without a branch: one `bic` and one `sub` on ARM,
        // and no second copy of the rest.
        let shift = i32::from(shift);
        let left = shift & !(shift >> 31);
        let right = left - shift;
        let x = acc.wrapping_shl(left as u32);
        let high = ((i64::from(x) * i64::from(multiplier) + (1 << 30)) >> 31) as i32;
        // TFLM's `min(max(v, act_min), act_max)`; `clamp` would also assert `min <= max` per
        // output.
        divide_high_by_pot(high, right)
            .wrapping_add(self.zero_point)
            .max(self.min)
            .min(self.max) as i8 as u8
    }
}

impl Requantizer<'_> {
    /// [`apply`](Self::apply) for `|acc| < 2^30` and `shift <= -1` (see [`narrow`](Self::narrow)),
    /// in about half the instructions:
    /// - the doubling high multiply `floor((acc * m + 2^30) / 2^31)` equals
    ///   `floor((2 acc * m + 2^31) / 2^32)`, one rounding `smmulr` of `2 acc` (which fits);
    /// - the rounding division is [`divide_high_by_pot`] with `right - 1 = !shift` (no zero
    ///   case), and its final `+ 1` is merged with the zero point: `(s + 1 + 2 zp) >> 1` is
    ///   `((s + 1) >> 1) + zp`.
    #[inline(always)]
    fn apply_narrow(&self, acc: i32, multiplier: i32, shift: i8) -> u8 {
        (self.narrow_unclamped(acc, multiplier, shift))
            .max(self.min)
            .min(self.max) as i8 as u8
    }

    /// [`apply_narrow`](Self::apply_narrow) for the activation range `-128..=127`, clamped to
    /// constants (off ARMv7E-M: there the assembly takes every narrow run).
    #[cfg(not(tinyaot_dsp))]
    #[inline(always)]
    fn apply_narrow_int8(&self, acc: i32, multiplier: i32, shift: i8) -> u8 {
        let v = self.narrow_unclamped(acc, multiplier, shift);
        // On x86-64 a plain clamp compiles to branches, which mispredict (outputs are often
        // clamped: activations fold into the output range); on the Cortex-M it is one `ssat`.
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        let v = super::sse2::saturate_i8(v);
        #[cfg(not(all(target_arch = "x86_64", not(miri))))]
        let v = v.clamp(-128, 127) as i8;
        v as u8
    }

    /// The narrow path's result before the clamp.
    #[inline(always)]
    fn narrow_unclamped(&self, acc: i32, multiplier: i32, shift: i8) -> i32 {
        let high = rounding_high_mul(acc << 1, multiplier);
        let toward_zero = high + (high >> 31);
        let halved = (toward_zero >> !i32::from(shift)) + (1 + 2 * self.zero_point);
        halved >> 1
    }
}

/// The packed operand of the clamp by saturation to `min..=max` ([`requantize_clamped!`], and int8
/// ADD's): the zero point less `min`, doubled plus one (the final halving's rounding), in the low
/// half ([`halving_operand`]), and the range's width `max - min` in the high half. The narrow
/// paths' checks keep the range and the zero point within int8, where both halves fit 16 bits
/// (outside it the results are wrong, as the narrow path's are when its promise is broken, but
/// nothing else).
#[cfg(any(tinyaot_dsp, test))]
#[inline(always)]
pub(crate) fn clamp_operand(zero_point: i32, (min, max): (i32, i32)) -> u32 {
    halving_operand(zero_point, min) | ((max - min) as u32) << 16
}

/// `1 + 2 (zero_point - min)` in the low 16 bits: what the clamps by saturation add before the
/// final halving, so that it yields `h - min` ([`clamp_operand`]).
#[cfg(any(tinyaot_dsp, test))]
#[inline(always)]
fn halving_operand(zero_point: i32, min: i32) -> u32 {
    u32::from((1 + 2 * (zero_point - min)) as u16)
}

/// The scaling of TFLM's 16x8 kernels (int16 activations, int8 weights, 64-bit sums): its
/// `MultiplyByQuantizedMultiplier` for an `int64_t` sum, with the multiplier already reduced to 16
/// bits and the shift turned into a right shift at generation time, so that
/// `(acc * multiplier + 2^(shift - 1)) >> shift`, truncated to 32 bits as TFLM's cast does.
/// `shift` is within `1..=46` (generation-time check); the product wraps as TFLM's does for sums
/// outside the range it assumes (`|acc| < 2^47`).
#[inline(always)]
pub(crate) fn scale_16x8(acc: i64, multiplier: i32, shift: i8) -> i32 {
    let shift = u32::from(shift as u8 & 63);
    let round = 1i64 << (shift.max(1) - 1);
    (acc.wrapping_mul(i64::from(multiplier)).wrapping_add(round) >> shift) as i32
}

/// [`scale_16x8`] clamped to `min..=max`: the requantization of the 16x8 convolutions, which add
/// no output zero point.
#[inline(always)]
pub(crate) fn requantize_16x8(acc: i64, multiplier: i32, shift: i8, (min, max): (i32, i32)) -> i16 {
    scale_16x8(acc, multiplier, shift).max(min).min(max) as i16
}

/// [`requantize_16x8`] of a sum known to fit 32 bits (a generation-time bound on the weights and
/// bias): for a right shift `s` within `16..=32`, `(sum * m + 2^(s - 1)) >> s` equals
/// `(sum * (m << (32 - s)) + 2^31) >> 32` (numerator and divisor scaled by `2^(32 - s)`), the
/// rounded high word of a 32-bit product (`smmulr`); `m << (32 - s)` fits, `m` being at most
/// `0x7FFF`, and the 64-bit product neither wraps nor leaves 32 bits once shifted. Other shifts
/// take [`scale_16x8`].
#[inline(always)]
pub(crate) fn requantize_16x8_narrow(
    sum: i32,
    multiplier: i32,
    shift: i8,
    (min, max): (i32, i32),
) -> i16 {
    let s = i32::from(shift);
    let v = if (16..=32).contains(&s) {
        rounding_high_mul(sum, multiplier << (32 - s))
    } else {
        scale_16x8(i64::from(sum), multiplier, shift)
    };
    v.max(min).min(max) as i16
}

/// `floor((a * b + 2^31) / 2^32)`: the high word of the product, rounded (`smmulr`).
#[inline(always)]
pub(crate) fn rounding_high_mul(a: i32, b: i32) -> i32 {
    #[cfg(tinyaot_dsp)]
    {
        super::dsp::smmulr(a, b)
    }
    #[cfg(not(tinyaot_dsp))]
    {
        ((i64::from(a) * i64::from(b) + (1 << 31)) >> 32) as i32
    }
}

/// TFLM's `RoundingDivideByPOT(high, right)` (round to nearest, ties away from zero) for the `high`
/// that a doubling high multiply by a non-negative Q31 multiplier gives, `right` in `0..=31`.
///
/// Ties away from zero are ties upward once negative values are moved down by one:
/// `round(h / 2^r) = floor((h - [h < 0]) / 2^r + 1/2) = (((h - [h < 0]) >> (r - 1)) + 1) >> 1`
/// (nested floors of divisions by powers of two compose). That is four instructions, where the
/// reference's mask, remainder and threshold take nine. Neither step overflows: such a `high` lies
/// within `-2^31 + 1 ..= 2^31 - 2` (`|x * m| <= 2^31 (2^31 - 1)`), so `h - 1` and, for `r = 1`,
/// `h + 1` stay in range.
#[inline(always)]
pub(crate) fn divide_high_by_pot(high: i32, right: i32) -> i32 {
    if right == 0 {
        return high;
    }
    let toward_zero = high + (high >> 31);
    ((toward_zero >> (right - 1)) + 1) >> 1
}

/// A Q31 multiplier and its shift as TFLM's `MultiplyByQuantizedMultiplier` applies them, the
/// shift split once into its left and right parts. For the non-negative multipliers the lowering
/// gives (from positive scales), [`Scale::apply`] has the same bits as
/// [`crate::math::multiply_by_quantized_multiplier`] in fewer instructions: the doubling high
/// multiply's one saturating case needs a negative multiplier, and the rounding division is
/// [`divide_high_by_pot`]. The SVDF and LSTM kernels split their scales once per call.
#[derive(Clone, Copy)]
pub(crate) struct Scale {
    multiplier: i32,
    left: u32,
    right: i32,
}

impl Scale {
    /// `multiplier` with `shift` (positive = left), `shift` within `-31..=31`.
    #[inline(always)]
    pub(crate) fn new(multiplier: i32, shift: i32) -> Self {
        let left = shift.max(0);
        Scale {
            multiplier,
            left: left as u32,
            right: left - shift,
        }
    }

    /// `MultiplyByQuantizedMultiplier(acc, multiplier, shift)`.
    #[inline(always)]
    pub(crate) fn apply(self, acc: i32) -> i32 {
        let x = i64::from(acc.wrapping_shl(self.left));
        let high = ((x * i64::from(self.multiplier) + (1 << 30)) >> 31) as i32;
        divide_high_by_pot(high, self.right)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The narrow 16x8 requantization against the 64-bit one, at the extremes of the sum, the
    /// multiplier and every right shift (the high multiply's and the fallback's).
    #[test]
    fn narrow_16x8_matches_the_64_bit_requantization() {
        let sums = [
            i32::MIN,
            i32::MIN + 1,
            -(1 << 30) - 1,
            -32769,
            -3,
            -1,
            0,
            1,
            2,
            1 << 22,
            i32::MAX,
        ];
        for shift in 1i8..=46 {
            for m in [0, 1, 0x1234, 0x4000, 0x7FFE, 0x7FFF] {
                for &sum in &sums {
                    for act in [(-32768, 32767), (-100, 3000)] {
                        assert_eq!(
                            requantize_16x8_narrow(sum, m, shift, act),
                            requantize_16x8(i64::from(sum), m, shift, act),
                            "{sum} {m} {shift}"
                        );
                    }
                }
            }
        }
    }
    use crate::math::multiply_by_quantized_multiplier;

    /// The shortcut rounding against the reference one, at the extremes of `high` and on a
    /// pseudo-random sample of every reachable `(acc, multiplier, shift)`.
    #[test]
    fn divide_high_by_pot_matches_rounding_divide_by_pot() {
        use crate::math::{rounding_divide_by_pot, saturating_rounding_doubling_high_mul};
        let (lowest, highest) = (i32::MIN + 1, i32::MAX - 1);
        let extremes = [lowest, -(1 << 30), -3, -2, -1, 0, 1, 2, 3, 1 << 30, highest];
        for right in 0..=31 {
            for &h in &extremes {
                for d in [-1, 0, 1] {
                    let h = h.saturating_add(d).clamp(lowest, highest);
                    assert_eq!(
                        divide_high_by_pot(h, right),
                        rounding_divide_by_pot(h, right)
                    );
                }
                // Exact ties, both signs.
                if right > 0 && right < 31 {
                    let tie = (1 << (right - 1)) + (5 << right);
                    for t in [tie, -tie] {
                        assert_eq!(
                            divide_high_by_pot(t, right),
                            rounding_divide_by_pot(t, right)
                        );
                    }
                }
            }
        }
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let cases = if cfg!(miri) { 2_000 } else { 2_000_000 };
        for _ in 0..cases {
            let r = next();
            let acc = (r >> 32) as i32 >> (r % 24);
            let multiplier = (next() >> 33) as i32;
            let shift = (r % 63) as i32 - 31;
            let want = crate::math::multiply_by_quantized_multiplier(acc, multiplier, shift);
            let (left, right) = if shift > 0 { (shift, 0) } else { (0, -shift) };
            let high =
                saturating_rounding_doubling_high_mul(acc.wrapping_shl(left as u32), multiplier);
            assert_eq!(
                divide_high_by_pot(high, right),
                want,
                "{acc} {multiplier} {shift}"
            );
        }
    }

    /// The narrow path against the reference, on a pseudo-random sample of accumulators below
    /// 2^30 in magnitude, right shifts and multipliers, and at their extremes.
    #[test]
    fn the_narrow_path_matches_the_reference() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let cases = if cfg!(miri) { 2_000 } else { 1_000_000 };
        let limit = (1 << 30) - 1;
        for i in 0..cases {
            let r = next();
            let acc = match i % 4 {
                0 => limit,
                1 => -limit,
                _ => ((r >> 32) as i32 >> (r % 30)) % (1 << 30),
            };
            let multiplier = if i % 7 == 0 {
                i32::MAX
            } else {
                (next() >> 33) as i32
            };
            let shift = -1 - (r % 31) as i8;
            let zero_point = (next() % 256) as i32 - 128;
            let want = crate::math::multiply_by_quantized_multiplier(acc, multiplier, shift.into())
                .wrapping_add(zero_point)
                .clamp(-128, 127) as i8 as u8;
            let (multipliers, shifts) = ([multiplier], [shift]);
            let r = Requantizer::new(1, None, &multipliers, &shifts, zero_point, (-128, 127))
                .narrow(true);
            assert_eq!(
                r.one(0, acc),
                want,
                "{acc} {multiplier} {shift} {zero_point}"
            );
            // A run: the int8 range takes the constant clamp, a narrower one the general clamp.
            let mut out = [0u8];
            r.run(0, &[acc], &mut out);
            assert_eq!(out[0], want, "run {acc} {multiplier} {shift} {zero_point}");
            let clamped = Requantizer::new(1, None, &multipliers, &shifts, zero_point, (-100, 90))
                .narrow(true);
            clamped.run(0, &[acc], &mut out);
            assert_eq!(out[0] as i8, (want as i8).clamp(-100, 90));
        }
    }

    /// [`requantize_clamped!`]'s arithmetic, instruction by instruction, against the narrow
    /// path's reference clamp, on a pseudo-random sample of accumulators, shifts, multipliers,
    /// zero points and activation ranges inside int8 (their extremes included).
    #[test]
    fn the_clamp_by_saturation_matches_the_reference() {
        let usat31 = |v: i32| v.max(0);
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let cases = if cfg!(miri) { 2_000 } else { 1_000_000 };
        let limit = (1 << 30) - 1;
        for i in 0..cases {
            let r = next();
            let acc = match i % 5 {
                0 => limit,
                1 => -limit,
                _ => ((r >> 32) as i32 >> (r % 30)) % (1 << 30),
            };
            let multiplier = (next() >> 33) as i32;
            let shift = -1 - (r % 31) as i8;
            let zero_point = (next() % 256) as i32 - 128;
            let (a, b) = ((next() % 256) as i32 - 128, (next() % 256) as i32 - 128);
            let (min, max) = match i % 7 {
                0 => (-128, 127),
                1 => (a.min(b), 127),
                _ => (a.min(b), a.max(b)),
            };
            let (multipliers, shifts) = ([multiplier], [shift]);
            let r = Requantizer::new(1, None, &multipliers, &shifts, zero_point, (min, max))
                .narrow(true);
            let (pk, top) = r.clamp_operands();
            // lsl, smmulr, add, asr
            let high = rounding_high_mul(acc << 1, multiplier);
            let v = (high + (high >> 31)) >> !i32::from(shift);
            // sxtah, usat #31 (asr #1), rsb (asr #16), usat #31, rsb
            let y = usat31((v + i32::from(pk as u16 as i16)) >> 1);
            let z = usat31((pk as i32 >> 16) - y);
            let out = (top - z) as u8;
            let want = r.apply_narrow(acc, multiplier, shift);
            assert_eq!(
                out, want,
                "{acc} {multiplier} {shift} {zero_point} {min} {max}"
            );
            if r.narrow_relu() {
                // `requantize_relu!`: sxtah, usat #31 (asr #1), sxtah (ror #16), ssat #8.
                let pk = r.relu_operand();
                let y = usat31((v + i32::from(pk as u16 as i16)) >> 1);
                let out = (y + (pk as i32 >> 16)).clamp(-128, 127) as u8;
                assert_eq!(
                    out, want,
                    "relu {acc} {multiplier} {shift} {zero_point} {min}"
                );
            }
        }
    }

    #[test]
    fn agrees_with_the_reference_multiply() {
        let multipliers = [0, 1 << 30, 1_395_864_371, i32::MAX, 1_073_741_825];
        let shifts = [-31i8, -7, 0, 3, 31];
        let r = Requantizer::new(5, None, &multipliers, &shifts, -5, (-128, 127));
        let accs = [i32::MIN, -1_000_000, -3, -1, 0, 1, 2, 77, 123_456, i32::MAX];
        for c in 0..5 {
            for &acc in &accs {
                let want = multiply_by_quantized_multiplier(acc, multipliers[c], shifts[c].into())
                    .wrapping_add(-5)
                    .clamp(-128, 127) as i8 as u8;
                assert_eq!(r.one(c, acc), want, "channel {c}, acc {acc}");
            }
        }
        let mut run = [0u8; 4];
        r.run(1, &[accs[3], accs[5], accs[7], accs[8]], &mut run);
        let four = r.four(1, [accs[3], accs[5], accs[7], accs[8]]);
        assert_eq!(run, four);
        assert_eq!(
            four,
            [
                r.one(1, accs[3]),
                r.one(2, accs[5]),
                r.one(3, accs[7]),
                r.one(4, accs[8])
            ]
        );
    }
}
