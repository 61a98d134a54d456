//! TFLM_DECODE (TFLM's compressed tensors): a constant of the chain's shape and type, compressed
//! by lookup table, pruning or Huffman coding (this generator's own encoders of TFLM's formats,
//! the inverses of its decoders), decoded and added to the chain (ADD, which reads the decoded
//! tensor as a weight-like operand). One time in eight a header byte TFLM's Prepare refuses
//! (MUTATED).

use tinyaot_modelkit::{BuiltinOperator as B, Options, TensorSpec, TensorType};

use super::signal::BROKEN;
use super::{OpGen, G};

/// This family's operators (see [`OpGen`]).
pub(super) const OPS: &[OpGen] = &[OpGen::new("TFLM_DECODE", B::CUSTOM, decode)
    .types(&[TensorType::INT16])
    .int32_arithmetic()];

/// The decode types of the ancillary header's byte 0.
const LUT: u8 = 0;
const HUFFMAN: u8 = 1;
const PRUNE: u8 = 2;

fn decode(g: &mut G<'_>, _: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    // ADD's broadcasting takes up to rank 4 here, as the arithmetic family draws it.
    if g.rank(x).is_some_and(|r| r > 4) {
        return None;
    }
    let x = g.take(x, dtype, |g| g.random_shape(1, 4, 6), 2.0);
    let shape = g.shape(x);
    let count: usize = shape.iter().map(|&d| d as usize).product();
    let quant = match dtype {
        TensorType::INT8 => Some((g.scale(), g.zero_point())),
        TensorType::INT16 => Some((g.scale(), 0)),
        _ => None,
    };
    let zero = quant.map_or(0, |q| q.1);
    // A few distinct values (the zero point among them), so that every encoding has repeats.
    let most = if g.rng.chance(0.3) { 20 } else { 5 };
    let distinct = g.rng.int(1, most) as usize;
    let mut pool: Vec<i64> = vec![zero];
    while pool.len() < distinct {
        let v = match dtype {
            TensorType::INT8 => g.rng.range(-128, 127),
            TensorType::INT16 => g.rng.range(-32768, 32767),
            TensorType::INT32 => g.rng.range(-1000, 1000),
            // Float32 values: quarters in [-4, 4], as bits below.
            _ => g.rng.range(-16, 16),
        };
        if !pool.contains(&v) {
            pool.push(v);
        }
    }
    let values: Vec<i64> = (0..count)
        .map(|_| {
            if g.rng.chance(0.3) {
                zero
            } else {
                g.rng.pick(&pool)
            }
        })
        .collect();
    let size = match dtype {
        TensorType::INT8 => 1,
        TensorType::INT16 => 2,
        _ => 4,
    };
    let bytes = |v: i64| -> Vec<u8> {
        match dtype {
            TensorType::FLOAT32 => (v as f32 / 4.0).to_le_bytes().to_vec(),
            _ => v.to_le_bytes()[..size].to_vec(),
        }
    };
    let huffman_ok = matches!(dtype, TensorType::INT8 | TensorType::INT16);
    let kind = match g.rng.int(0, 2) {
        1 if huffman_ok => HUFFMAN,
        2 => PRUNE,
        _ => LUT,
    };
    let (encoded, mut ancillary, text) = match kind {
        LUT => lut(g, &values, &bytes),
        PRUNE => prune(&values, zero, &bytes),
        _ => huffman(g, &values, dtype == TensorType::INT16),
    };
    let mut mutated = "";
    if g.rng.chance(BROKEN) {
        // Each refused by TFLM's Prepare: the header's version, an unknown decode type, the
        // decoder's version.
        mutated = " MUTATED";
        match g.rng.int(0, 2) {
            0 => ancillary[1] = 2,
            1 => ancillary[0] = 3 + g.rng.int(0, 100) as u8,
            _ => ancillary[4] = 0,
        }
    }
    let compressed = g.m.tensor(
        TensorSpec::new(TensorType::UINT8, &[encoded.len() as i32]).constant(encoded.clone()),
    );
    let meta = g.m.tensor(
        TensorSpec::new(TensorType::UINT8, &[ancillary.len() as i32]).constant(ancillary.clone()),
    );
    let decoded = g.act(dtype, &shape, quant);
    g.m.custom_op("TFLM_DECODE", None, &[compressed, meta], &[decoded]);
    let out = g.act(dtype, &shape, None);
    let activation = tinyaot_modelkit::Activation::NONE;
    g.m.op(B::ADD, Options::Add { activation }, &[x, decoded], &[out]);
    g.describe(format!(
        "TFLM_DECODE {text} ({} + {} bytes) -> {}{mutated}; ADD",
        encoded.len(),
        ancillary.len(),
        g.qtext(decoded)
    ));
    Some(out)
}

/// The 16-byte header: decode type, version 1, the decoder's version 1 and parameter byte.
fn header(kind: u8, param: u8, param2: u8) -> Vec<u8> {
    let mut h = vec![0u8; 16];
    h[0] = kind;
    h[1] = 1;
    h[4] = 1;
    h[5] = param;
    h[6] = param2;
    h
}

/// Lookup table: one table of the distinct values (padded to a random stride), indices of a
/// random width that holds them, packed most significant bit first.
fn lut(
    g: &mut G<'_>,
    values: &[i64],
    bytes: &dyn Fn(i64) -> Vec<u8>,
) -> (Vec<u8>, Vec<u8>, String) {
    let mut table: Vec<i64> = Vec::new();
    for &v in values {
        if !table.contains(&v) {
            table.push(v);
        }
    }
    let least = (usize::BITS - (table.len().max(2) - 1).leading_zeros()) as i32;
    let bits = g.rng.int(least, 7) as usize;
    let stride = table.len() + g.rng.int(0, 2) as usize;
    let mut indices = vec![0u8; (values.len() * bits).div_ceil(8)];
    for (i, v) in values.iter().enumerate() {
        let index = table.iter().position(|t| t == v).unwrap_or(0);
        for b in 0..bits {
            if (index >> (bits - 1 - b)) & 1 == 1 {
                let bit = i * bits + b;
                indices[bit / 8] |= 0x80 >> (bit % 8);
            }
        }
    }
    let mut ancillary = header(LUT, bits as u8, stride as u8);
    for k in 0..stride {
        ancillary.extend(bytes(table.get(k).copied().unwrap_or(0)));
    }
    let text = format!("lut {bits}-bit indices, {} values, stride {stride}", table.len());
    (indices, ancillary, text)
}

/// Pruning: a bit per element (set where it differs from the zero point), the kept values.
fn prune(values: &[i64], zero: i64, bytes: &dyn Fn(i64) -> Vec<u8>) -> (Vec<u8>, Vec<u8>, String) {
    let mut mask = vec![0u8; values.len().div_ceil(8)];
    let mut ancillary = header(PRUNE, 0, 0);
    let mut kept = 0;
    for (i, &v) in values.iter().enumerate() {
        if v != zero {
            mask[i / 8] |= 0x80 >> (i % 8);
            ancillary.extend(bytes(v));
            kept += 1;
        }
    }
    (mask, ancillary, format!("prune {kept} of {} kept", values.len()))
}

/// Huffman: code lengths by Huffman's merge of the values' counts, canonical codes, decode
/// tables whose first has 2^first entries and whose sub-tables 2^sub (or fewer where the codes
/// below end sooner), 16- or 32-bit entries (INT16 needs 32).
fn huffman(g: &mut G<'_>, values: &[i64], int16: bool) -> (Vec<u8>, Vec<u8>, String) {
    let mut symbols: Vec<(i64, usize)> = Vec::new();
    for &v in values {
        match symbols.iter_mut().find(|s| s.0 == v) {
            Some(s) => s.1 += 1,
            None => symbols.push((v, 1)),
        }
    }
    let lengths = code_lengths(&symbols.iter().map(|s| s.1).collect::<Vec<_>>());
    // Canonical codes: by length, then by position.
    let mut order: Vec<usize> = (0..symbols.len()).collect();
    order.sort_by_key(|&i| (lengths[i], i));
    let mut codes = vec![(0u32, 0u32); symbols.len()];
    let (mut code, mut previous) = (0u32, 0u32);
    for &i in &order {
        code <<= lengths[i] - previous;
        codes[i] = (code, lengths[i]);
        code += 1;
        previous = lengths[i];
    }
    let wide = int16 || g.rng.chance(0.5);
    let first = g.rng.int(1, 4) as u32;
    let sub = g.rng.int(1, 3) as u32;
    let (found, shift) = if wide { (1u32 << 31, 27) } else { (1 << 15, 11) };
    let low = if int16 { 0xffff } else { 0xff };
    let symbol_values: Vec<u32> = symbols.iter().map(|s| s.0 as u32 & low).collect();
    let mut entries: Vec<u32> = Vec::new();
    let tables = Tables {
        codes: &codes,
        values: &symbol_values,
        found,
        shift,
        sub,
    };
    tables.build(&mut entries, 0, 0, first);
    let mut bits: Vec<bool> = Vec::new();
    for v in values {
        let i = symbols.iter().position(|s| s.0 == *v).unwrap_or(0);
        let (code, len) = codes[i];
        bits.extend((0..len).rev().map(|b| (code >> b) & 1 == 1));
    }
    // Zero bits after the last code, so that no lookup reads a word beyond the stream.
    let total = (bits.len() + first.max(sub) as usize).div_ceil(32) * 32;
    bits.resize(total, false);
    let stream: Vec<u8> = bits
        .chunks(8)
        .map(|c| c.iter().fold(0u8, |b, &bit| (b << 1) | u8::from(bit)))
        .collect();
    let mut ancillary = header(HUFFMAN, (((first - 1) << 4) as u8) | u8::from(wide), 0);
    for e in &entries {
        if wide {
            ancillary.extend(e.to_le_bytes());
        } else {
            ancillary.extend((*e as u16).to_le_bytes());
        }
    }
    let text = format!(
        "huffman {} symbols, {}-bit entries, first table {first} bits, sub-tables {sub}",
        symbols.len(),
        if wide { 32 } else { 16 }
    );
    (stream, ancillary, text)
}

/// Huffman code lengths of symbols with these counts (a lone symbol gets 1).
fn code_lengths(counts: &[usize]) -> Vec<u32> {
    let mut lengths = vec![0u32; counts.len()];
    if counts.len() == 1 {
        lengths[0] = 1;
        return lengths;
    }
    // Groups of symbols with their summed count; merge the two smallest until one is left.
    let mut groups: Vec<(usize, Vec<usize>)> =
        counts.iter().enumerate().map(|(i, &c)| (c, vec![i])).collect();
    while groups.len() > 1 {
        groups.sort_by_key(|g| std::cmp::Reverse(g.0));
        let (c1, s1) = groups.pop().unwrap_or_default();
        let (c2, s2) = groups.pop().unwrap_or_default();
        for &s in s1.iter().chain(&s2) {
            lengths[s] += 1;
        }
        groups.push((c1 + c2, [s1, s2].concat()));
    }
    lengths
}

/// What the decode tables are built from.
struct Tables<'a> {
    /// Each symbol's code and length.
    codes: &'a [(u32, u32)],
    /// Each symbol's value (the entry's low bits).
    values: &'a [u32],
    found: u32,
    shift: u32,
    /// Index bits of a sub-table at most.
    sub: u32,
}

impl Tables<'_> {
    /// Appends the table of the codes that start with `prefix` (`plen` bits), indexed by the
    /// next `bits` bits, then its sub-tables; returns its first entry's index.
    fn build(&self, entries: &mut Vec<u32>, prefix: u32, plen: u32, bits: u32) -> usize {
        let base = entries.len();
        entries.resize(base + (1 << bits), 0);
        let mut later = Vec::new();
        for j in 0..(1u32 << bits) {
            let (word, wlen) = ((prefix << bits) | j, plen + bits);
            let hit = self
                .codes
                .iter()
                .position(|&(c, n)| n > plen && n <= wlen && word >> (wlen - n) == c);
            match hit {
                Some(s) => {
                    let used = self.codes[s].1 - plen;
                    entries[base + j as usize] = self.found | (used << self.shift) | self.values[s];
                }
                None => later.push((base + j as usize, word, wlen)),
            }
        }
        for (at, word, wlen) in later {
            let longest = self
                .codes
                .iter()
                .filter(|&&(c, n)| n > wlen && c >> (n - wlen) == word)
                .map(|&(_, n)| n)
                .max();
            match longest {
                Some(n) => {
                    let next = (n - wlen).min(self.sub);
                    let sub = self.build(entries, word, wlen, next);
                    entries[at] = ((next - 1) << self.shift) | (sub - at) as u32;
                }
                // No code starts so (a lone symbol's unused half): never read.
                None => entries[at] = self.found | (1 << self.shift) | self.values[0],
            }
        }
        base
    }
}
