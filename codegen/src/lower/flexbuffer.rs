//! A bounded reader of the FlexBuffer a custom operator keeps its parameters in
//! (`Operator.custom_options`), read the way TFLM's kernels read it.
//!
//! TFLM's signal operators wrap the buffer in `FlexbufferWrapper`: the root is taken as a vector
//! (a map's values, which FlexBuffers stores sorted by key, so parameter `i` is the `i`-th key in
//! alphabetical order) and element `i` is read as a raw little-endian integer of the vector's
//! element width, whatever type the element declares. TFLM checks nothing of this: a buffer too
//! short for its root, an offset out of it, or an index past the vector is an out-of-bounds read.
//! This reader reads the same bytes and, where TFLM would read outside the buffer or past the
//! vector, returns an error saying what is wrong (the caller makes it an `invalid model`), so a
//! hostile buffer can never make it panic or read outside the slice.

/// FlexBuffers' type code of a map (`FBT_MAP`).
const TYPE_MAP: u8 = 9;
/// FlexBuffers' type code of an untyped vector (`FBT_VECTOR`).
const TYPE_VECTOR: u8 = 10;

/// The root vector of a custom operator's FlexBuffer: its elements, of one byte width.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FlexVector<'a> {
    /// The whole buffer.
    bytes: &'a [u8],
    /// Where element 0 starts.
    start: usize,
    /// Bytes per element: 1, 2, 4 or 8.
    width: usize,
    /// The element count the buffer declares (every element is inside `bytes`).
    len: usize,
}

impl<'a> FlexVector<'a> {
    /// The root of `bytes` as a vector, as `flexbuffers::GetRoot(..).AsVector()` takes it: a map
    /// or an untyped vector. Fails when the root or its elements lie outside `bytes`, or when the
    /// root is another type (TFLM would read an empty vector's element, past its end).
    pub(crate) fn root(bytes: &'a [u8]) -> Result<Self, String> {
        let n = bytes.len();
        if n < 3 {
            return Err(format!(
                "the custom options are {n} bytes, too short for a FlexBuffer root"
            ));
        }
        let root_width = usize::from(bytes[n - 1]);
        if !matches!(root_width, 1 | 2 | 4 | 8) {
            return Err(format!(
                "the custom options' root byte width is {root_width}, not 1, 2, 4 or 8"
            ));
        }
        let packed = bytes[n - 2];
        let root = (n - 2).checked_sub(root_width).ok_or_else(|| {
            format!("the custom options are {n} bytes, too short for a root of {root_width} bytes")
        })?;
        let kind = packed >> 2;
        if kind != TYPE_MAP && kind != TYPE_VECTOR {
            return Err(format!(
                "the custom options' root has FlexBuffer type {kind}, not a map (9) or a vector \
                 (10)"
            ));
        }
        let width = 1usize << (packed & 3);
        let offset = read_uint(bytes, root, root_width).unwrap_or(u64::MAX);
        let start = usize::try_from(offset)
            .ok()
            .and_then(|o| root.checked_sub(o))
            .ok_or_else(|| {
                format!("the custom options' root offset {offset} points before the buffer")
            })?;
        let size_at = start.checked_sub(width).ok_or_else(|| {
            "the custom options' root vector has no room for its size before it".to_string()
        })?;
        let len = read_uint(bytes, size_at, width).unwrap_or(u64::MAX);
        let len = usize::try_from(len)
            .ok()
            .filter(|&len| {
                len.checked_mul(width)
                    .and_then(|b| b.checked_add(start))
                    .is_some_and(|end| end <= n)
            })
            .ok_or_else(|| {
                format!(
                    "the custom options' root vector declares {len} elements of {width} bytes, \
                     past the end of the {n}-byte buffer"
                )
            })?;
        Ok(FlexVector {
            bytes,
            start,
            width,
            len,
        })
    }

    /// Element `i` as a signed integer of the element width (TFLM's `ElementAsInt64`; its
    /// `ElementAsInt32` truncates that to 32 bits).
    pub(crate) fn int(&self, i: usize) -> Result<i64, String> {
        let raw = self.raw(i)?;
        let bits = 64 - 8 * self.width as u32;
        // Sign-extends the low `width` bytes.
        Ok(((raw << bits) as i64) >> bits)
    }

    /// The raw bytes of element `i`, zero-extended.
    fn raw(&self, i: usize) -> Result<u64, String> {
        if i >= self.len {
            return Err(format!(
                "the custom options hold {} parameters, too few to read parameter {i}",
                self.len
            ));
        }
        // In the buffer: `root` checked `start + len · width <= bytes.len()`.
        read_uint(self.bytes, self.start + i * self.width, self.width)
            .ok_or_else(|| format!("the custom options' parameter {i} is outside the buffer"))
    }
}

/// The little-endian unsigned integer of `width` bytes at `at`, if inside `bytes`.
fn read_uint(bytes: &[u8], at: usize, width: usize) -> Option<u64> {
    let field = bytes.get(at..at.checked_add(width)?)?;
    Some(
        field
            .iter()
            .rev()
            .fold(0u64, |acc, &b| (acc << 8) | u64::from(b)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `{"a": 1, "b": -2}` as FlexBuffers writes it (Python's `flexbuffers.Dumps`): the keys'
    /// strings, the keys vector, the map (keys offset, keys width, size, then the values 1 and
    /// -2 and their types), and the root (offset 4 back, type map of width 1, root width 1).
    fn small_map() -> Vec<u8> {
        vec![97, 0, 98, 0, 2, 5, 4, 2, 1, 2, 1, 254, 4, 4, 4, 36, 1]
    }

    #[test]
    fn reads_a_map_values_by_index() {
        let map = small_map();
        let v = FlexVector::root(&map).unwrap();
        assert_eq!(v.len, 2);
        assert_eq!(v.int(0), Ok(1));
        assert_eq!(v.int(1), Ok(-2));
        assert!(v.int(2).unwrap_err().contains("too few"));
    }

    #[test]
    fn every_truncation_and_every_byte_is_an_error_or_a_value_never_a_panic() {
        let map = small_map();
        for n in 0..map.len() {
            let _ = FlexVector::root(&map[n..]).map(|v| v.int(0));
            let _ = FlexVector::root(&map[..n]).map(|v| v.int(0));
        }
        for at in 0..map.len() {
            for b in [0, 1, 3, 8, 0x7f, 0xff] {
                let mut m = map.clone();
                m[at] = b;
                if let Ok(v) = FlexVector::root(&m) {
                    for i in 0..4 {
                        let _ = v.int(i);
                    }
                }
            }
        }
        assert!(FlexVector::root(&[]).unwrap_err().contains("too short"));
        assert!(FlexVector::root(&[0, 4, 1]).unwrap_err().contains("type 1"));
    }
}
