//! TFLM_DECODE: weights kept compressed in flash, decoded into the arena before their consumer
//! (TFLM's DECODE custom operator, whose output tensor lives in the arena). Lookup-table decoding
//! (`decode_state_lut.cc`): the compressed tensor is a bitstring of fixed-width indices (1 to 7
//! bits, most significant bit first, packed from the first byte on) into value tables, one per
//! channel, `stride` values apart; each decoded element is its channel's value at its index.
//! Pruning (`decode_state_prune.cc`): a bitmask of one bit per element, the kept values in order,
//! a pruned element its channel's zero point. Huffman (`decode_state_huffman.cc`): a bitstring of
//! variable-length codes walked through multi-level decode tables.

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

/// Constants of a pruning decode, computed at generation time.
#[derive(Clone, Copy, Debug)]
pub struct DecodePrune<'a> {
    /// One bit per element, most significant bit of the first byte first: 1 where the element
    /// is the next kept value, 0 where it was pruned (the compressed tensor's bytes, in flash).
    pub mask: &'a [u8],
    /// The kept elements' bytes in order, `element_size` each (after the ancillary header).
    pub values: &'a [u8],
    /// Elements of the output.
    pub count: usize,
    /// Bytes per element: 1 (INT8, BOOL), 2 (INT16), 4 (INT32, FLOAT32) or 8 (INT64).
    pub element_size: usize,
    /// The zero point of each channel, which a pruned element of that channel decodes to: one
    /// per channel only for INT8 tensors with a non-zero per-channel zero point, otherwise one
    /// (0 for every type but INT8, as TFLM requires).
    pub zero_points: &'a [i8],
    /// Whether the channel is the output's last axis (element `i` is channel `i % channels`);
    /// otherwise its first. `channels` is `zero_points.len()`.
    pub last_axis: bool,
}

/// Decodes the `count` elements of `p` into the bytes at `output`: each element whose mask bit
/// is set takes the next kept value, each other one its channel's zero point (sign-extended:
/// only INT8 tensors have one other than 0). The generator checked that the mask and the values
/// cover every element.
#[cfg_attr(target_os = "none", inline(never))]
pub fn decode_prune(arena: &mut [u8], output: usize, p: &DecodePrune) {
    let size = p.element_size;
    let channels = p.zero_points.len().max(1);
    let per_channel = if p.last_axis { 1 } else { p.count / channels };
    let out = &mut arena[output..output + p.count * size];
    let (mut next, mut channel, mut within) = (0, 0, 0);
    for (i, dst) in out.chunks_exact_mut(size).enumerate() {
        if (p.mask[i >> 3] >> (7 - (i & 7))) & 1 != 0 {
            dst.copy_from_slice(&p.values[next..next + size]);
            next += size;
        } else {
            let zero = p.zero_points.get(channel).copied().unwrap_or(0);
            dst.fill(if zero < 0 { 0xff } else { 0 });
            dst[0] = zero as u8;
        }
        // The next element's channel, without a division per element.
        within += 1;
        if within == per_channel {
            within = 0;
            channel += 1;
            if channel == channels {
                channel = 0;
            }
        }
    }
}

/// Constants of a Huffman decode, computed at generation time.
#[derive(Clone, Copy, Debug)]
pub struct DecodeHuffman<'a> {
    /// The codes: one bitstring, most significant bit of the first byte first (TFLM reads it as
    /// big-endian 32-bit words), in flash.
    pub stream: &'a [u8],
    /// The decode tables (after the ancillary header): little-endian entries of 4 bytes when
    /// `wide`, of 2 otherwise.
    pub tables: &'a [u8],
    /// Elements of the output.
    pub count: usize,
    /// Bits that index the first table, 1 to 16.
    pub first_bits: usize,
    /// Whether the table entries are 32-bit (else 16-bit, INT8 outputs only).
    pub wide: bool,
    /// Bytes per output element: 1 (INT8) or 2 (INT16); each element is its entry's low bytes.
    pub element_size: usize,
}

/// Where a Huffman walk would read outside its tensors: a model TFLM would decode from
/// whatever memory follows them, which the generator refuses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HuffmanFault {
    /// Element `element` needs the stream's 32-bit word `word`, beyond its bytes.
    Stream {
        /// The element being decoded.
        element: usize,
        /// The word TFLM would load.
        word: usize,
    },
    /// Element `element` reads table entry `entry`, beyond the tables.
    Table {
        /// The element being decoded.
        element: usize,
        /// The entry's index.
        entry: usize,
    },
}

/// The `n` bits (1 to 16) at bit `pos` of `stream`, if TFLM's reader (whole 32-bit words)
/// stays within the stream's bytes.
#[inline(always)]
fn stream_bits(stream: &[u8], pos: usize, n: usize) -> Option<u32> {
    let word = (pos + n - 1) / 32;
    if (word + 1) * 4 > stream.len() {
        return None;
    }
    let byte = pos >> 3;
    let at = |i: usize| u32::from(stream.get(i).copied().unwrap_or(0));
    let window = (at(byte) << 16) | (at(byte + 1) << 8) | at(byte + 2);
    Some((window >> (24 - (pos & 7) - n)) & ((1 << n) - 1))
}

/// Walks the codes of `p` as TFLM's decoder does, giving `emit` each element's index and table
/// entry: the first table indexed by the next `first_bits` bits; an entry without its found bit
/// names the bits of the next index (its count field plus one) and the next table's offset from
/// itself; an entry with it is the element, and its count field the bits it used of the last
/// index read, the rest of which go back to the stream. Stops at the first read outside the
/// tensors. The generator runs the whole walk (so the kernel never faults); the kernel reuses it.
#[inline(always)]
pub fn huffman_walk(
    p: &DecodeHuffman,
    mut emit: impl FnMut(usize, u32),
) -> Result<(), HuffmanFault> {
    let (found, count_mask, count_shift, value_mask, entry_size) = if p.wide {
        (1u32 << 31, 0x7800_0000u32, 27, 0x07ff_ffffu32, 4)
    } else {
        (1 << 15, 0x7800, 11, 0x07ff, 2)
    };
    let entry_at = |element: usize, entry: usize| -> Result<u32, HuffmanFault> {
        let at = entry.wrapping_mul(entry_size);
        match p.tables.get(at..at.wrapping_add(entry_size)) {
            Some(&[a, b]) => Ok(u32::from(u16::from_le_bytes([a, b]))),
            Some(&[a, b, c, d]) => Ok(u32::from_le_bytes([a, b, c, d])),
            _ => Err(HuffmanFault::Table { element, entry }),
        }
    };
    let mut pos = 0usize;
    for element in 0..p.count {
        let mut used = p.first_bits;
        let read = |pos: usize, n: usize| {
            stream_bits(p.stream, pos, n).ok_or(HuffmanFault::Stream {
                element,
                word: (pos + n - 1) / 32,
            })
        };
        let mut at = read(pos, used)? as usize;
        pos += used;
        let mut entry = entry_at(element, at)?;
        while entry & found == 0 {
            used = ((entry & count_mask) >> count_shift) as usize + 1;
            let index = read(pos, used)? as usize;
            pos += used;
            at = at
                .wrapping_add((entry & value_mask) as usize)
                .wrapping_add(index);
            entry = entry_at(element, at)?;
        }
        emit(element, entry);
        let kept = ((entry & count_mask) >> count_shift) as usize;
        if used > kept {
            pos -= used - kept;
        }
    }
    Ok(())
}

/// Decodes the `count` elements of `p` into the bytes at `output`, each its table entry's low
/// `element_size` bytes. The generator ran the same walk to its end, so it does not fault here.
#[cfg_attr(target_os = "none", inline(never))]
pub fn decode_huffman(arena: &mut [u8], output: usize, p: &DecodeHuffman) {
    let size = p.element_size;
    let out = &mut arena[output..output + p.count * size];
    // A fault (which the generator rules out) leaves the rest as it was.
    let _ = huffman_walk(p, |i, entry| {
        let bytes = entry.to_le_bytes();
        out[i * size..(i + 1) * size].copy_from_slice(&bytes[..size]);
    });
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::{
        decode_huffman, decode_lut, decode_prune, huffman_walk, DecodeHuffman, DecodeLut,
        DecodePrune, HuffmanFault,
    };

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

    /// Pruned elements take their channel's zero point along either axis; kept ones the values
    /// in order; a negative INT8 zero point; INT16 values with the single zero point 0.
    #[test]
    fn pruned_elements_take_their_channels_zero_point() {
        // Kept: elements 0, 3, 4, 7 of 8 (mask 1001_1001).
        let mut p = DecodePrune {
            mask: &[0b1001_1001],
            values: &[10, 20, 30, 40],
            count: 8,
            element_size: 1,
            zero_points: &[-1, 5],
            last_axis: false,
        };
        let mut arena = [0u8; 8];
        decode_prune(&mut arena, 0, &p);
        assert_eq!(arena, [10, 0xff, 0xff, 20, 30, 5, 5, 40]);
        p.last_axis = true;
        decode_prune(&mut arena, 0, &p);
        assert_eq!(arena, [10, 5, 0xff, 20, 30, 5, 0xff, 40]);
        let values: std::vec::Vec<u8> = [-300i16, 7].iter().flat_map(|v| v.to_le_bytes()).collect();
        let p = DecodePrune {
            mask: &[0b0100_0001],
            values: &values,
            count: 8,
            element_size: 2,
            zero_points: &[0],
            last_axis: false,
        };
        let mut arena = [0xaau8; 16];
        decode_prune(&mut arena, 0, &p);
        let got: std::vec::Vec<i16> = arena
            .chunks(2)
            .map(|b| i16::from_le_bytes([b[0], b[1]]))
            .collect();
        assert_eq!(got, [0, -300, 0, 0, 0, 0, 0, 7]);
    }

    /// Codes a = 0, b = 10, c = 110, d = 111 (int8 values 1, 2, 3, 4) through a 2-bit first
    /// table (00 and 01 give a using 1 bit, 10 gives b using 2, 11 a 1-bit sub-table starting at
    /// the next entry) and its sub-table (c, d using its 1 bit); 16-bit entries. "a b c d a" is
    /// 0 10 110 111 0 = 0101_1011_10 then padding to a 32-bit word.
    fn tables16() -> std::vec::Vec<u8> {
        let found = 0x8000u16;
        let entries = [
            found | (1 << 11) | 1,
            found | (1 << 11) | 1,
            found | (2 << 11) | 2,
            1, // a 1-bit sub-table (count 0: 1 bit) one entry on
            found | (1 << 11) | 3,
            found | (1 << 11) | 4,
        ];
        entries.iter().flat_map(|e| e.to_le_bytes()).collect()
    }

    #[test]
    fn huffman_codes_walk_first_and_sub_tables() {
        let tables = tables16();
        let p = DecodeHuffman {
            stream: &[0b0101_1011, 0b1000_0000, 0, 0],
            tables: &tables,
            count: 5,
            first_bits: 2,
            wide: false,
            element_size: 1,
        };
        let mut arena = [0u8; 5];
        decode_huffman(&mut arena, 0, &p);
        assert_eq!(arena, [1, 2, 3, 4, 1]);
        // The same table in 32-bit entries, INT16 elements.
        let wide: std::vec::Vec<u8> = tables
            .chunks(2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
            .map(|e| {
                let (f, c, v) = (
                    u32::from(e >> 15),
                    u32::from((e >> 11) & 15),
                    u32::from(e & 0x7ff),
                );
                (f << 31) | (c << 27) | (v + if v > 2 { 0xff00 } else { 0 })
            })
            .flat_map(|e| e.to_le_bytes())
            .collect();
        let p = DecodeHuffman {
            tables: &wide,
            wide: true,
            element_size: 2,
            ..p
        };
        let mut arena = [0u8; 10];
        decode_huffman(&mut arena, 0, &p);
        let got: std::vec::Vec<u16> = arena
            .chunks(2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
            .collect();
        assert_eq!(got, [1, 2, 0xff03, 0xff04, 1]);
    }

    #[test]
    fn huffman_reads_beyond_the_stream_or_tables_are_faults() {
        let tables = tables16();
        // After "a b c d a" (10 bits) the zero bits decode as a's, each reading 2 bits and
        // keeping 1: element k >= 5 reads bits 5 + k and 6 + k, within the one word up to k = 25.
        let p = DecodeHuffman {
            stream: &[0b0101_1011, 0b1000_0000, 0, 0],
            tables: &tables,
            count: 26,
            first_bits: 2,
            wide: false,
            element_size: 1,
        };
        let mut last = 0;
        assert_eq!(huffman_walk(&p, |i, _| last = i), Ok(()));
        assert_eq!(last, 25);
        let p = DecodeHuffman { count: 27, ..p };
        assert_eq!(
            huffman_walk(&p, |_, _| {}),
            Err(HuffmanFault::Stream {
                element: 26,
                word: 1
            })
        );
        // A sub-table pointer past the tables.
        let short = &tables[..8];
        let p = DecodeHuffman {
            tables: short,
            count: 3,
            ..p
        };
        assert_eq!(
            huffman_walk(&p, |_, _| {}),
            Err(HuffmanFault::Table {
                element: 2,
                entry: 4
            })
        );
    }
}
