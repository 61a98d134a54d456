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

/// FlexBuffers' type codes a [`FlexMap`] value may have.
const TYPE_NULL: u8 = 0;
/// `FBT_INT`.
const TYPE_INT: u8 = 1;
/// `FBT_UINT`.
const TYPE_UINT: u8 = 2;
/// `FBT_FLOAT`.
const TYPE_FLOAT: u8 = 3;
/// `FBT_INDIRECT_INT`.
const TYPE_INDIRECT_INT: u8 = 6;
/// `FBT_INDIRECT_UINT`.
const TYPE_INDIRECT_UINT: u8 = 7;
/// `FBT_INDIRECT_FLOAT`.
const TYPE_INDIRECT_FLOAT: u8 = 8;
/// `FBT_BOOL`.
const TYPE_BOOL: u8 = 26;

/// The root of a custom operator's FlexBuffer as a map read by key, as
/// `flexbuffers::GetRoot(..).AsMap()` and `map["key"]` read it (TFLM's
/// detection_postprocess.cc): a root of another type is an empty map, whose every key is null.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FlexMap<'a> {
    /// The whole buffer.
    bytes: &'a [u8],
    /// The map's values and keys, or `None` for the empty map.
    map: Option<MapLayout>,
}

/// Where a map's parts are, every one checked inside the buffer.
#[derive(Clone, Copy, Debug)]
struct MapLayout {
    /// Value 0.
    start: usize,
    /// Bytes per value.
    width: usize,
    /// Values (their type bytes follow them).
    len: usize,
    /// Key 0 (an offset back to its string).
    keys: usize,
    /// Bytes per key offset.
    keys_width: usize,
    /// Keys.
    keys_len: usize,
}

/// One value of a [`FlexMap`], as a `flexbuffers::Reference`: null when the key is missing.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FlexValue<'a> {
    /// The whole buffer.
    bytes: &'a [u8],
    /// Its FlexBuffers type.
    kind: u8,
    /// Where its field is in the map.
    at: usize,
    /// The map's value width (the field's).
    parent_width: usize,
    /// The width its type byte declares (of the target of an indirect value).
    width: usize,
}

/// A checked `len · width`-byte run at `at`, or an error naming `what`.
fn run(n: usize, at: usize, len: usize, width: usize, what: &str) -> Result<(), String> {
    len.checked_mul(width)
        .and_then(|b| b.checked_add(at))
        .filter(|&end| end <= n)
        .map(|_| ())
        .ok_or_else(|| {
            format!("the custom options' {what} runs past the end of the {n}-byte buffer")
        })
}

impl<'a> FlexMap<'a> {
    /// The root of `bytes` as a map. Fails where TFLM would read outside the buffer.
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
        if packed >> 2 != TYPE_MAP {
            return Ok(FlexMap { bytes, map: None });
        }
        let width = 1usize << (packed & 3);
        let back = |at: usize, w: usize, what: &str| -> Result<usize, String> {
            let offset = read_uint(bytes, at, w)
                .ok_or_else(|| format!("the custom options' {what} is outside the buffer"))?;
            usize::try_from(offset)
                .ok()
                .and_then(|o| at.checked_sub(o))
                .ok_or_else(|| format!("the custom options' {what} points before the buffer"))
        };
        let start = back(root, root_width, "root offset")?;
        let len_at = start
            .checked_sub(width)
            .ok_or_else(|| "the custom options' map has no room for its size".to_string())?;
        let len = read_uint(bytes, len_at, width).unwrap_or(u64::MAX);
        let len = usize::try_from(len).unwrap_or(usize::MAX);
        run(n, start, len, width + 1, "map")?;
        let keys_field = start.checked_sub(3 * width).ok_or_else(|| {
            "the custom options' map has no room for its keys' fields".to_string()
        })?;
        let keys = back(keys_field, width, "keys offset")?;
        let keys_width = read_uint(bytes, keys_field + width, width).unwrap_or(0);
        if !matches!(keys_width, 1 | 2 | 4 | 8) {
            return Err(format!(
                "the custom options' keys are {keys_width} bytes wide, not 1, 2, 4 or 8"
            ));
        }
        let keys_width = keys_width as usize;
        let keys_len_at = keys
            .checked_sub(keys_width)
            .ok_or_else(|| "the custom options' keys have no room for their size".to_string())?;
        let keys_len = read_uint(bytes, keys_len_at, keys_width).unwrap_or(u64::MAX);
        let keys_len = usize::try_from(keys_len).unwrap_or(usize::MAX);
        run(n, keys, keys_len, keys_width, "keys vector")?;
        Ok(FlexMap {
            bytes,
            map: Some(MapLayout {
                start,
                width,
                len,
                keys,
                keys_width,
                keys_len,
            }),
        })
    }

    /// The value of `key`, found as `flexbuffers::Map::operator[]` finds it (glibc's `bsearch`
    /// over the keys with `strcmp`): null when absent, or when the key's position is past the
    /// values.
    pub(crate) fn get(&self, key: &str) -> Result<FlexValue<'a>, String> {
        let null = FlexValue {
            bytes: self.bytes,
            kind: TYPE_NULL,
            at: 0,
            parent_width: 1,
            width: 1,
        };
        let Some(m) = self.map else {
            return Ok(null);
        };
        let (mut lo, mut hi) = (0usize, m.keys_len);
        while lo < hi {
            let mid = (lo + hi) / 2;
            let field = m.keys + mid * m.keys_width;
            let offset = read_uint(self.bytes, field, m.keys_width).unwrap_or(u64::MAX);
            let at = usize::try_from(offset)
                .ok()
                .and_then(|o| field.checked_sub(o))
                .ok_or_else(|| format!("the custom options' key {mid} points before the buffer"))?;
            let stored = self.bytes[at..]
                .split(|&b| b == 0)
                .next()
                .filter(|s| at + s.len() < self.bytes.len())
                .ok_or_else(|| format!("the custom options' key {mid} runs past the buffer"))?;
            match key.as_bytes().cmp(stored) {
                core::cmp::Ordering::Less => hi = mid,
                core::cmp::Ordering::Greater => lo = mid + 1,
                core::cmp::Ordering::Equal => {
                    if mid >= m.len {
                        return Ok(null);
                    }
                    let packed = self.bytes[m.start + m.len * m.width + mid];
                    return Ok(FlexValue {
                        bytes: self.bytes,
                        kind: packed >> 2,
                        at: m.start + mid * m.width,
                        parent_width: m.width,
                        width: 1 << (packed & 3),
                    });
                }
            }
        }
        Ok(null)
    }
}

impl FlexValue<'_> {
    /// Whether the value is null (`IsNull`), as a missing key is.
    pub(crate) fn is_null(&self) -> bool {
        self.kind == TYPE_NULL
    }

    /// The field of an indirect value: `width` bytes at the offset back from the map's field.
    fn indirect(&self) -> Result<usize, String> {
        let offset = read_uint(self.bytes, self.at, self.parent_width).unwrap_or(u64::MAX);
        let at = usize::try_from(offset)
            .ok()
            .and_then(|o| self.at.checked_sub(o))
            .ok_or_else(|| "its indirect value points before the buffer".to_string())?;
        run(self.bytes.len(), at, 1, self.width, "indirect value")?;
        Ok(at)
    }

    /// A signed integer of `width` bytes at `at`.
    fn int_at(&self, at: usize, width: usize) -> Result<i64, String> {
        let raw = read_uint(self.bytes, at, width).ok_or("it is outside the buffer")?;
        let bits = 64 - 8 * width as u32;
        Ok(((raw << bits) as i64) >> bits)
    }

    /// A float field of `width` bytes at `at` (FlexBuffers writes 4 or 8).
    fn float_at(&self, at: usize, width: usize) -> Result<f64, String> {
        let raw = read_uint(self.bytes, at, width).ok_or("it is outside the buffer")?;
        match width {
            4 => Ok(f64::from(f32::from_bits(raw as u32))),
            8 => Ok(f64::from_bits(raw)),
            _ => Err(format!(
                "it is a float of {width} bytes; tinyaot reads floats of 4 or 8"
            )),
        }
    }

    /// `AsInt64()`: an integer or bool as stored, a float truncated toward zero (refused where
    /// that conversion is undefined in C++: NaN or out of range), null as 0.
    pub(crate) fn as_i64(&self) -> Result<i64, String> {
        match self.kind {
            TYPE_NULL => Ok(0),
            TYPE_INT | TYPE_BOOL => self.int_at(self.at, self.parent_width),
            TYPE_UINT => Ok(read_uint(self.bytes, self.at, self.parent_width)
                .ok_or("it is outside the buffer")? as i64),
            TYPE_INDIRECT_INT => self.int_at(self.indirect()?, self.width),
            TYPE_INDIRECT_UINT => Ok(read_uint(self.bytes, self.indirect()?, self.width)
                .ok_or("it is outside the buffer")? as i64),
            TYPE_FLOAT | TYPE_INDIRECT_FLOAT => {
                let v = self.as_f64()?;
                // The truncation is defined where its result is in [-2^63, 2^63).
                let limit = (1u64 << 63) as f64;
                if v.is_nan() || !(-limit..limit).contains(&v) {
                    return Err(format!(
                        "it is the float {v}, which C++'s conversion to an integer leaves undefined"
                    ));
                }
                Ok(v as i64)
            }
            other => Err(format!(
                "it has FlexBuffer type {other}; tinyaot reads null, integers, floats and bools"
            )),
        }
    }

    /// `AsDouble()`: a float as stored, an integer or bool converted, null as 0.
    pub(crate) fn as_f64(&self) -> Result<f64, String> {
        match self.kind {
            TYPE_FLOAT => self.float_at(self.at, self.parent_width),
            TYPE_INDIRECT_FLOAT => self.float_at(self.indirect()?, self.width),
            TYPE_UINT | TYPE_INDIRECT_UINT => {
                let at = if self.kind == TYPE_UINT {
                    self.at
                } else {
                    self.indirect()?
                };
                let w = if self.kind == TYPE_UINT {
                    self.parent_width
                } else {
                    self.width
                };
                Ok(read_uint(self.bytes, at, w).ok_or("it is outside the buffer")? as f64)
            }
            TYPE_BOOL => Ok(read_uint(self.bytes, self.at, self.parent_width)
                .ok_or("it is outside the buffer")? as f64),
            _ => self.as_i64().map(|v| v as f64),
        }
    }

    /// `AsBool()`: a bool as stored, else whether the integer is nonzero (a float is refused:
    /// C++'s conversion of a negative one to `uint64_t` is undefined).
    pub(crate) fn as_bool(&self) -> Result<bool, String> {
        match self.kind {
            TYPE_BOOL => Ok(read_uint(self.bytes, self.at, self.parent_width)
                .ok_or("it is outside the buffer")?
                != 0),
            TYPE_FLOAT | TYPE_INDIRECT_FLOAT => {
                Err("it is a float; tinyaot reads a bool, an integer or null as a bool".to_string())
            }
            _ => self.as_i64().map(|v| v != 0),
        }
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

    /// `{"max_detections": 10, "nms_iou_threshold": 0.6, "use_regular_nms": True, "y_scale":
    /// 10.0}` as Python's `flexbuffers.Dumps` writes it: keys of one byte, values of eight (the
    /// floats as doubles).
    fn typed_map() -> Vec<u8> {
        let mut bytes = b"max_detections\0nms_iou_threshold\0use_regular_nms\0y_scale\0".to_vec();
        bytes.extend([
            4, 58, 44, 27, 12, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0,
        ]);
        bytes.extend([4, 0, 0, 0, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0, 0, 0]);
        bytes.extend([51, 51, 51, 51, 51, 51, 227, 63, 1, 0, 0, 0, 0, 0, 0, 0]);
        bytes.extend([0, 0, 0, 0, 0, 0, 36, 64, 7, 15, 107, 15, 36, 39, 1]);
        bytes
    }

    #[test]
    fn reads_a_map_by_key() {
        let bytes = typed_map();
        let m = FlexMap::root(&bytes).unwrap();
        assert_eq!(m.get("max_detections").unwrap().as_i64(), Ok(10));
        assert_eq!(m.get("max_detections").unwrap().as_f64(), Ok(10.0));
        assert_eq!(m.get("nms_iou_threshold").unwrap().as_f64(), Ok(0.6));
        assert_eq!(m.get("use_regular_nms").unwrap().as_bool(), Ok(true));
        assert_eq!(m.get("y_scale").unwrap().as_i64(), Ok(10));
        assert!(m.get("nms_iou_threshold").unwrap().as_bool().is_err());
        let missing = m.get("num_classes").unwrap();
        assert!(missing.is_null());
        assert_eq!((missing.as_i64(), missing.as_bool()), (Ok(0), Ok(false)));
        // Another root type is TFLM's empty map: every key null.
        let vector = FlexMap::root(&[1, 2, 1, 4, 40, 1]).unwrap();
        assert!(vector.get("max_detections").unwrap().is_null());
        for n in 0..bytes.len() {
            for cut in [&bytes[n..], &bytes[..n]] {
                if let Ok(m) = FlexMap::root(cut) {
                    for key in [
                        "max_detections",
                        "nms_iou_threshold",
                        "use_regular_nms",
                        "y_scale",
                    ] {
                        if let Ok(v) = m.get(key) {
                            let _ = (v.as_i64(), v.as_f64(), v.as_bool());
                        }
                    }
                }
            }
        }
        for at in 0..bytes.len() {
            for b in [0, 1, 3, 8, 0x7f, 0xff] {
                let mut m = bytes.clone();
                m[at] = b;
                if let Ok(map) = FlexMap::root(&m) {
                    for key in ["max_detections", "use_regular_nms", "y_scale", "zz"] {
                        if let Ok(v) = map.get(key) {
                            let _ = (v.as_i64(), v.as_f64(), v.as_bool());
                        }
                    }
                }
            }
        }
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
