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

impl DecodeLut<'_> {
    /// The table entry of element `i`: its channel and its index into that channel's table.
    /// The generator checks every element's entry against the tables with this too.
    #[inline(always)]
    pub fn entry(&self, i: usize) -> (usize, usize) {
        let channel = if self.last_axis {
            i % self.channels
        } else {
            i / (self.count / self.channels)
        };
        (channel, index(self.indices, i, self.bit_width))
    }
}

/// Decodes the `count` elements of `p` into the bytes at `output`: element `i` of channel `c`
/// is value `index(i)` of table `c`, its bytes copied as stored (the tables hold the output's
/// little-endian elements).
#[cfg_attr(target_os = "none", inline(never))]
pub fn decode_lut(arena: &mut [u8], output: usize, p: &DecodeLut) {
    let size = p.element_size;
    let out = &mut arena[output..output + p.count * size];
    for (i, dst) in out.chunks_exact_mut(size).enumerate() {
        let (channel, index) = p.entry(i);
        let at = (channel * p.stride + index) * size;
        dst.copy_from_slice(&p.values[at..at + size]);
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::{decode_lut, DecodeLut};

    /// TFLM's documentation of its compression (docs/compression.md): INT16 data
    /// `[2, 4, 4, 10, 1, 7, 99, 10, 2, 4]`, value table `[99, 2, 10, 4, 1, 7]`, 3-bit indices
    /// `1 3 3 2 4 5 0 2 1 3`, the bitstring `00101101 10101001 01000010 00101100`.
    #[test]
    fn tflm_documented_example_decodes() {
        let values: [i16; 6] = [99, 2, 10, 4, 1, 7];
        let table: std::vec::Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let p = DecodeLut {
            indices: &[0b0010_1101, 0b1010_1001, 0b0100_0010, 0b0010_1100],
            values: &table,
            count: 10,
            bit_width: 3,
            element_size: 2,
            channels: 1,
            stride: 6,
            last_axis: false,
        };
        let mut arena = [0u8; 22];
        decode_lut(&mut arena, 2, &p);
        let got: std::vec::Vec<i16> = arena[2..]
            .chunks(2)
            .map(|b| i16::from_le_bytes([b[0], b[1]]))
            .collect();
        assert_eq!(got, [2, 4, 4, 10, 1, 7, 99, 10, 2, 4]);
    }

    /// The documentation's per-channel example: two channels of five, tables
    /// `[1, 10, 2, 4, 0 | 99, 10, 2, 7, 4]` (stride 5), indices `2 3 3 1 0 3 0 1 2 4`; then the
    /// same tables along the last axis, element `i` of channel `i % 2`.
    #[test]
    fn per_channel_tables_along_either_axis() {
        let table = [1u8, 10, 2, 4, 0, 99, 10, 2, 7, 4];
        let mut p = DecodeLut {
            indices: &[0b0100_1101, 0b1001_0000, 0b1100_0001, 0b0101_0000],
            values: &table,
            count: 10,
            bit_width: 3,
            element_size: 1,
            channels: 2,
            stride: 5,
            last_axis: false,
        };
        let mut arena = [0u8; 10];
        decode_lut(&mut arena, 0, &p);
        assert_eq!(arena, [2, 4, 4, 10, 1, 7, 99, 10, 2, 4]);
        p.last_axis = true;
        decode_lut(&mut arena, 0, &p);
        assert_eq!(arena, [2, 7, 4, 10, 1, 7, 1, 10, 2, 4]);
    }
}
