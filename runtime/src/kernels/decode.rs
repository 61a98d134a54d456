//! TFLM_DECODE: weights kept compressed in flash, decoded into the arena before their consumer
//! (TFLM's DECODE custom operator, whose output tensor lives in the arena). Lookup-table decoding
//! (`decode_state_lut.cc`): the compressed tensor is a bitstring of fixed-width indices (1 to 7
//! bits, most significant bit first, packed from the first byte on) into value tables, one per
//! channel, `stride` values apart; each decoded element is its channel's value at its index.

/// Constants of a lookup-table decode, computed at generation time.
#[derive(Clone, Copy, Debug)]
pub struct DecodeLut<'a> {
    /// The packed indices (the compressed tensor's bytes, in flash).
    pub indices: &'a [u8],
    /// The value tables (the ancillary tensor's bytes after its 16-byte header), `channels`
    /// tables of `stride` elements of `element_size` bytes each.
    pub values: &'a [u8],
    /// Elements of the output.
    pub count: usize,
    /// Bits per index, 1 to 7.
    pub bit_width: usize,
    /// Bytes per element: 1 (INT8, BOOL), 2 (INT16), 4 (INT32, FLOAT32) or 8 (INT64).
    pub element_size: usize,
    /// Value tables: the output's per-channel quantization scales, or 1.
    pub channels: usize,
    /// Elements between two channels' tables.
    pub stride: usize,
    /// Whether the channel is the output's last axis (element `i` is channel `i % channels`);
    /// otherwise its first (element `i` is channel `i / (count / channels)`).
    pub last_axis: bool,
}

/// The index of element `i`: `bit_width` bits from bit `i * bit_width` of `indices`, most
/// significant first.
#[inline(always)]
fn index(indices: &[u8], i: usize, bit_width: usize) -> usize {
    let bit = i * bit_width;
    let byte = bit >> 3;
    let hi = usize::from(indices[byte]);
    let lo = usize::from(indices.get(byte + 1).copied().unwrap_or(0));
    (((hi << 8) | lo) >> (16 - (bit & 7) - bit_width)) & ((1 << bit_width) - 1)
}

/// Decodes the `count` elements of `p` into the bytes at `output`: element `i` of channel `c`
/// is value `index(i)` of table `c`, its bytes copied as stored (the tables hold the output's
/// little-endian elements).
#[cfg_attr(target_os = "none", inline(never))]
pub fn decode_lut(arena: &mut [u8], output: usize, p: &DecodeLut) {
    let size = p.element_size;
    let out = &mut arena[output..output + p.count * size];
    let per_channel = if p.last_axis { 1 } else { p.count / p.channels };
    for (i, dst) in out.chunks_exact_mut(size).enumerate() {
        let channel = if p.last_axis {
            i % p.channels
        } else {
            i / per_channel
        };
        let at = (channel * p.stride + index(p.indices, i, p.bit_width)) * size;
        dst.copy_from_slice(&p.values[at..at + size]);
    }
}
