//! The FlatBuffers verifier the generated code runs: tolerant where TensorFlow Lite Micro is.
//!
//! TFLM never verifies a model; it reads every scalar and offset with unaligned loads and never
//! looks at a string's bytes. Real models rely on that: vendor post-processing leaves an `[i64]`
//! vector 4 bytes off its natural alignment, converters write non-UTF-8 tensor names. The
//! `flatbuffers` crate's verifier refuses both (`Unaligned`, `Utf8Error`). This one does not,
//! and otherwise gives the same guarantees (three of them stricter, for the reader's sake), so
//! that the generated accessors, which read with unaligned loads, stay in bounds:
//!
//! - every offset, vtable, table field, vector and string is inside the buffer, each checked
//!   before it is read; a vtable is a whole number of 2-byte entries (as the C++ verifier
//!   requires), at least its 4-byte header (stricter);
//! - a table's vtable position is computed as the reader computes it (`table - soffset` in `i32`),
//!   so a table beyond 2 GiB or a vtable outside the buffer is refused rather than misread
//!   (stricter);
//! - a vtable entry is read exactly when the reader reads it (`offset + 2 <= vtable length`);
//! - union values are verified as the variant their type field names; of an unknown variant (which
//!   no typed accessor reads) the table header is checked, which the raw accessor's `Table` reads
//!   (stricter);
//! - required fields are present; strings end with a 0 byte unless
//!   [`VerifierOptions::ignore_missing_null_terminator`];
//! - [`VerifierOptions::max_depth`], [`VerifierOptions::max_tables`] and
//!   [`VerifierOptions::max_apparent_size`] (every byte range checked, counted once per reference)
//!   bound the work, and what a reader copies out of shared objects, in the limits.
//!
//! It does not require:
//! - alignment of any position (scalars, offsets, vectors, vtables);
//! - strings to be UTF-8. The generated `&str` accessors go through
//!   [`LenientStr`](crate::strings::LenientStr), which checks at read time; the `*_bytes`
//!   accessors return the stored bytes (see [`crate::strings`]).
//!
//! The generated code calls this module (`schema/regen.sh` points flatc's output at it); the entry
//! point is [`root_with_opts`], through `tflite::root_as_model_with_opts`.

use core::fmt;
use core::mem::size_of;
use core::ops::Range;

use flatbuffers::{Follow, ForwardsUOffset, SkipSizePrefix, VOffsetT, Vector};

/// The limits: the `flatbuffers` crate's options, honoured the same way.
pub use flatbuffers::VerifierOptions;

/// Size of a `uoffset` (vector lengths, forward offsets) and of a table's `soffset`.
const OFFSET: usize = 4;

/// Why a buffer does not verify.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Bytes `range` would be read, and the buffer ends before `range.end` (saturated at
    /// `usize::MAX` when an offset or length overflows).
    OutOfBounds {
        /// The bytes that would be read.
        range: Range<usize>,
    },
    /// The table at `position` names its vtable with `soffset`, which leads outside the buffer
    /// (or the table lies where a reader's `i32` arithmetic cannot reach it).
    VTableOutOfBounds {
        /// The signed offset read at `position`.
        soffset: i32,
        /// The table's position.
        position: usize,
    },
    /// The vtable at `position` claims an odd length (not a whole number of 2-byte entries), or
    /// one shorter than its 4-byte header (its own length and the table's).
    BadVTableLength {
        /// The vtable's position.
        position: usize,
        /// Its claimed length in bytes.
        length: u16,
    },
    /// A required field is absent.
    MissingRequiredField {
        /// The field's name in the schema.
        field: &'static str,
    },
    /// Exactly one of a union's value and its type field is present.
    InconsistentUnion {
        /// The value field.
        field: &'static str,
        /// Its type field.
        type_field: &'static str,
    },
    /// The string in `range` is not followed by a 0 byte.
    MissingNullTerminator {
        /// The string's bytes.
        range: Range<usize>,
    },
    /// More than [`VerifierOptions::max_tables`] tables visited.
    TooManyTables {
        /// The limit.
        limit: usize,
    },
    /// More than [`VerifierOptions::max_apparent_size`] bytes checked.
    ApparentSizeTooLarge {
        /// The limit.
        limit: usize,
    },
    /// Tables nested deeper than [`VerifierOptions::max_depth`].
    DepthLimitReached {
        /// The limit.
        limit: usize,
    },
}

impl ErrorKind {
    /// The limits: errors that say how much, not where (they carry no trace).
    fn is_limit(&self) -> bool {
        matches!(
            self,
            ErrorKind::TooManyTables { .. }
                | ErrorKind::ApparentSizeTooLarge { .. }
                | ErrorKind::DepthLimitReached { .. }
        )
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::OutOfBounds { range } => {
                write!(f, "bytes {}..{} are out of bounds", range.start, range.end)
            }
            ErrorKind::VTableOutOfBounds { soffset, position } => write!(
                f,
                "the table at byte {position} has vtable offset {soffset}, which points out of \
                 bounds"
            ),
            ErrorKind::BadVTableLength { position, length } => write!(
                f,
                "the vtable at byte {position} is {length} bytes long: not a whole number of \
                 2-byte entries of at least the 4-byte header"
            ),
            ErrorKind::MissingRequiredField { field } => {
                write!(f, "required field `{field}` is missing")
            }
            ErrorKind::InconsistentUnion { field, type_field } => write!(
                f,
                "exactly one of union `{field}` and its type `{type_field}` is present"
            ),
            ErrorKind::MissingNullTerminator { range } => write!(
                f,
                "the string at bytes {}..{} is missing its null terminator",
                range.start, range.end
            ),
            ErrorKind::TooManyTables { limit } => write!(f, "more than {limit} tables"),
            ErrorKind::ApparentSizeTooLarge { limit } => {
                write!(f, "apparent size larger than {limit} bytes")
            }
            ErrorKind::DepthLimitReached { limit } => {
                write!(f, "tables nested more than {limit} deep")
            }
        }
    }
}

/// One step of the path from the root to where verification failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TraceStep {
    /// A table field.
    Field {
        /// The field's name in the schema.
        name: &'static str,
        /// The field's position.
        position: usize,
    },
    /// A vector element.
    Element {
        /// Its index.
        index: usize,
        /// Its position.
        position: usize,
    },
    /// A union value, verified as `variant`.
    Variant {
        /// `Union::Variant`.
        variant: &'static str,
        /// The value's position.
        position: usize,
    },
}

impl fmt::Display for TraceStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TraceStep::Field { name, position } => write!(f, "field `{name}` at byte {position}"),
            TraceStep::Element { index, position } => {
                write!(f, "element {index} at byte {position}")
            }
            TraceStep::Variant { variant, position } => {
                write!(f, "union variant `{variant}` at byte {position}")
            }
        }
    }
}

/// A buffer that does not verify: what is wrong, and where (innermost step first; limit errors
/// have no trace).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidFlatbuffer {
    /// What is wrong.
    pub kind: ErrorKind,
    /// The path to it, innermost first.
    pub trace: Vec<TraceStep>,
}

impl InvalidFlatbuffer {
    fn new(kind: ErrorKind) -> Self {
        InvalidFlatbuffer {
            kind,
            trace: Vec::new(),
        }
    }
}

impl From<ErrorKind> for InvalidFlatbuffer {
    fn from(kind: ErrorKind) -> Self {
        InvalidFlatbuffer::new(kind)
    }
}

/// One line: the kind, then the path from the innermost step out.
impl fmt::Display for InvalidFlatbuffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind)?;
        for step in &self.trace {
            write!(f, ", in {step}")?;
        }
        Ok(())
    }
}

impl std::error::Error for InvalidFlatbuffer {}

/// The verifier's result.
pub type Result<T> = core::result::Result<T, InvalidFlatbuffer>;

/// Adds `step` to the trace of a data error.
#[inline]
fn trace<T>(result: Result<T>, step: TraceStep) -> Result<T> {
    result.map_err(|mut e| {
        if !e.kind.is_limit() {
            e.trace.push(step);
        }
        e
    })
}

/// The verification state of one buffer (one verification: the counters are not reset).
#[derive(Debug)]
pub struct Verifier<'opts, 'buf> {
    buf: &'buf [u8],
    opts: &'opts VerifierOptions,
    depth: usize,
    tables: usize,
    apparent_size: usize,
}

impl<'opts, 'buf> Verifier<'opts, 'buf> {
    /// A verifier of `buf` under `opts`.
    pub fn new(opts: &'opts VerifierOptions, buf: &'buf [u8]) -> Self {
        Verifier {
            buf,
            opts,
            depth: 0,
            tables: 0,
            apparent_size: 0,
        }
    }

    /// The buffer being verified.
    #[inline]
    pub fn buffer(&self) -> &'buf [u8] {
        self.buf
    }

    /// The options in force.
    #[inline]
    pub fn options(&self) -> &'opts VerifierOptions {
        self.opts
    }

    /// Checks that bytes `pos..pos + size` are in the buffer, and counts them towards the
    /// apparent size. Any position will do: nothing is aligned.
    #[inline]
    pub fn range(&mut self, pos: usize, size: usize) -> Result<Range<usize>> {
        let end = pos.saturating_add(size);
        if end > self.buf.len() {
            return Err(ErrorKind::OutOfBounds { range: pos..end }.into());
        }
        self.apparent_size = self.apparent_size.saturating_add(size);
        if self.apparent_size > self.opts.max_apparent_size {
            return Err(ErrorKind::ApparentSizeTooLarge {
                limit: self.opts.max_apparent_size,
            }
            .into());
        }
        Ok(pos..end)
    }

    /// The `N` bytes at `pos`, checked and counted.
    #[inline]
    fn bytes<const N: usize>(&mut self, pos: usize) -> Result<[u8; N]> {
        let range = self.range(pos, N)?;
        let mut out = [0; N];
        out.copy_from_slice(&self.buf[range]);
        Ok(out)
    }

    /// The little-endian `u32` at `pos` (an offset or a length), checked and counted.
    #[inline]
    pub fn read_uoffset(&mut self, pos: usize) -> Result<u32> {
        self.bytes(pos).map(u32::from_le_bytes)
    }

    /// Starts verifying the table at `pos`: its vtable offset and its vtable. Counts the table and
    /// one level of depth; [`TableVerifier::finish`] gives the level back.
    #[inline]
    pub fn visit_table<'ver>(
        &'ver mut self,
        pos: usize,
    ) -> Result<TableVerifier<'ver, 'opts, 'buf>> {
        let (vtable, vtable_len) = self.table_header(pos)?;
        self.tables += 1;
        if self.tables > self.opts.max_tables {
            return Err(ErrorKind::TooManyTables {
                limit: self.opts.max_tables,
            }
            .into());
        }
        self.depth += 1;
        if self.depth > self.opts.max_depth {
            return Err(ErrorKind::DepthLimitReached {
                limit: self.opts.max_depth,
            }
            .into());
        }
        Ok(TableVerifier {
            pos,
            vtable,
            vtable_len,
            verifier: self,
        })
    }

    /// Checks what `flatbuffers::Table` reads of any table at `pos` (its vtable offset, its
    /// vtable's header and extent), and returns the vtable's position and length.
    #[inline]
    fn table_header(&mut self, pos: usize) -> Result<(usize, usize)> {
        let soffset = self.bytes(pos).map(i32::from_le_bytes)?;
        // The reader (`flatbuffers::Table::vtable`) computes `(pos as i32 - soffset) as usize`:
        // accept exactly the positions where that arithmetic is exact and lands in the buffer.
        let vtable = i32::try_from(pos)
            .ok()
            .and_then(|p| p.checked_sub(soffset))
            .and_then(|v| usize::try_from(v).ok())
            .filter(|&v| v < self.buf.len())
            .ok_or(ErrorKind::VTableOutOfBounds {
                soffset,
                position: pos,
            })?;
        let length = self.bytes(vtable).map(u16::from_le_bytes)?;
        // Even, as the C++ verifier requires; and holding its header, which every builder writes
        // and `flatbuffers::VTable`'s safe methods read (`num_fields`, `object_inline_num_bytes`).
        if length % 2 != 0 || length < 4 {
            return Err(ErrorKind::BadVTableLength {
                position: vtable,
                length,
            }
            .into());
        }
        self.range(vtable, usize::from(length))?;
        Ok((vtable, usize::from(length)))
    }

    /// Verifies the union value at `pos` as a `T` (the variant its type field names).
    #[inline]
    pub fn verify_union_variant<T: Verifiable>(
        &mut self,
        variant: &'static str,
        pos: usize,
    ) -> Result<()> {
        trace(
            T::run_verifier(self, pos),
            TraceStep::Variant {
                variant,
                position: pos,
            },
        )
    }
}

/// Verification of one table's fields, from [`Verifier::visit_table`].
#[derive(Debug)]
pub struct TableVerifier<'ver, 'opts, 'buf> {
    /// The table's position.
    pos: usize,
    /// Its vtable's position; `vtable..vtable + vtable_len` is in the buffer.
    vtable: usize,
    vtable_len: usize,
    verifier: &'ver mut Verifier<'opts, 'buf>,
}

impl<'ver, 'opts, 'buf> TableVerifier<'ver, 'opts, 'buf> {
    /// The position of the field whose vtable entry is at byte `field` of the vtable, `None` when
    /// absent. An entry is read when it lies wholly inside the vtable, as the reader
    /// (`flatbuffers::VTable::get`) reads it; outside, the field is absent for both.
    #[inline]
    pub fn deref(&mut self, field: VOffsetT) -> Result<Option<usize>> {
        let field = usize::from(field);
        if field + 2 > self.vtable_len {
            return Ok(None);
        }
        // Inside the vtable, which `visit_table` checked (and counted).
        let at = self.vtable + field;
        let entry = match self.verifier.buf.get(at..at + 2) {
            Some(&[lo, hi]) => u16::from_le_bytes([lo, hi]),
            _ => return Err(ErrorKind::OutOfBounds { range: at..at + 2 }.into()),
        };
        Ok((entry != 0).then(|| self.pos.saturating_add(usize::from(entry))))
    }

    /// The verifier, for custom checks.
    pub fn verifier(&mut self) -> &mut Verifier<'opts, 'buf> {
        self.verifier
    }

    /// Verifies field `name` (vtable entry `field`) as a `T` when present; refuses its absence
    /// when `required`.
    #[inline]
    pub fn visit_field<T: Verifiable>(
        mut self,
        name: &'static str,
        field: VOffsetT,
        required: bool,
    ) -> Result<Self> {
        match self.deref(field)? {
            Some(position) => {
                trace(
                    T::run_verifier(self.verifier, position),
                    TraceStep::Field { name, position },
                )?;
                Ok(self)
            }
            None if required => Err(ErrorKind::MissingRequiredField { field: name }.into()),
            None => Ok(self),
        }
    }

    /// Verifies a union: its type field `type_name` (a `Key`) and its value field `name` must be
    /// both present or both absent; when present, `verify_value` verifies the value as the
    /// variant the type names.
    #[inline]
    pub fn visit_union<Key, UnionVerifier>(
        mut self,
        type_name: &'static str,
        type_field: VOffsetT,
        name: &'static str,
        field: VOffsetT,
        required: bool,
        verify_value: UnionVerifier,
    ) -> Result<Self>
    where
        Key: Follow<'buf> + Verifiable,
        UnionVerifier: FnOnce(<Key as Follow<'buf>>::Inner, &mut Verifier, usize) -> Result<()>,
    {
        let value = self.deref(field)?;
        let key = self.deref(type_field)?;
        match (key, value) {
            (None, None) if required => Err(ErrorKind::MissingRequiredField { field: name }.into()),
            (None, None) => Ok(self),
            (Some(k), Some(position)) => {
                trace(
                    Key::run_verifier(self.verifier, k),
                    TraceStep::Field {
                        name: type_name,
                        position: k,
                    },
                )?;
                let buf = self.verifier.buf;
                if k.saturating_add(size_of::<Key>()) > buf.len() {
                    // `Key::run_verifier` has checked this already; kept so that the read below
                    // does not depend on it.
                    return Err(ErrorKind::OutOfBounds {
                        range: k..k.saturating_add(size_of::<Key>()),
                    }
                    .into());
                }
                // SAFETY: a union type is a generated enum, whose `Follow` reads its
                // `size_of::<Key>()`-byte scalar at `k` (unaligned): in the buffer, checked above.
                let key = unsafe { Key::follow(buf, k) };
                // Whatever the type, the generated `<union>()` accessor returns the value as a
                // `flatbuffers::Table`, whose safe methods read its vtable: the offset and the
                // table's header must be in bounds even for a type no accessor knows (every
                // union of the TFLite schema holds tables). Then the variant, in full.
                let header = self.verifier.read_uoffset(position).and_then(|o| {
                    self.verifier
                        .table_header(position.saturating_add(o as usize))
                });
                trace(
                    header.and_then(|_| verify_value(key, self.verifier, position)),
                    TraceStep::Field { name, position },
                )?;
                Ok(self)
            }
            _ => Err(ErrorKind::InconsistentUnion {
                field: name,
                type_field: type_name,
            }
            .into()),
        }
    }

    /// Ends the table, giving back its level of depth.
    #[inline]
    pub fn finish(self) -> &'ver mut Verifier<'opts, 'buf> {
        self.verifier.depth -= 1;
        self.verifier
    }
}

/// A type the verifier can check at a position: scalars, offsets, vectors, tables, strings.
pub trait Verifiable {
    /// Checks that a well-formed `Self` is at `pos` of the verifier's buffer.
    fn run_verifier(v: &mut Verifier, pos: usize) -> Result<()>;
}

/// Scalars (and the generated enums): their bytes are in the buffer, at any position.
macro_rules! scalars {
    ($($t:ty),*) => {$(
        impl Verifiable for $t {
            #[inline]
            fn run_verifier(v: &mut Verifier, pos: usize) -> Result<()> {
                v.range(pos, size_of::<$t>()).map(|_| ())
            }
        }
        impl SimpleToVerifyInSlice for $t {}
    )*};
}

/// Element types whose vectors verify by their byte range alone: the scalars and the generated
/// enums. (Vectors of offsets verify each element.)
pub trait SimpleToVerifyInSlice {}

scalars!(bool, u8, i8, u16, i16, u32, i32, u64, i64, f32, f64);

impl<T: Verifiable> Verifiable for ForwardsUOffset<T> {
    #[inline]
    fn run_verifier(v: &mut Verifier, pos: usize) -> Result<()> {
        let offset = v.read_uoffset(pos)?;
        T::run_verifier(v, pos.saturating_add(offset as usize))
    }
}

impl<T: Verifiable> Verifiable for SkipSizePrefix<T> {
    #[inline]
    fn run_verifier(v: &mut Verifier, pos: usize) -> Result<()> {
        T::run_verifier(v, pos.saturating_add(OFFSET))
    }
}

/// The elements of the vector at `pos` (its `u32` length, then `length * element` bytes), checked
/// and counted; any position will do.
#[inline]
pub fn vector_range(v: &mut Verifier, pos: usize, element: usize) -> Result<Range<usize>> {
    let len = v.read_uoffset(pos)? as usize;
    v.range(pos.saturating_add(OFFSET), len.saturating_mul(element))
}

impl<T: SimpleToVerifyInSlice> Verifiable for Vector<'_, T> {
    #[inline]
    fn run_verifier(v: &mut Verifier, pos: usize) -> Result<()> {
        vector_range(v, pos, size_of::<T>()).map(|_| ())
    }
}

impl<T: Verifiable> Verifiable for Vector<'_, ForwardsUOffset<T>> {
    fn run_verifier(v: &mut Verifier, pos: usize) -> Result<()> {
        let range = vector_range(v, pos, OFFSET)?;
        for (index, position) in range.step_by(OFFSET).enumerate() {
            trace(
                <ForwardsUOffset<T>>::run_verifier(v, position),
                TraceStep::Element { index, position },
            )?;
        }
        Ok(())
    }
}

/// Verifies `data` as a FlatBuffer whose root is a `T`, under `opts`, and returns the root.
///
/// # Errors
///
/// The first problem found, with its path.
pub fn root_with_opts<'opts, 'buf, T>(
    opts: &'opts VerifierOptions,
    data: &'buf [u8],
) -> Result<T::Inner>
where
    T: 'buf + Follow<'buf> + Verifiable,
{
    let mut v = Verifier::new(opts, data);
    <ForwardsUOffset<T>>::run_verifier(&mut v, 0)?;
    // SAFETY: the root offset and everything reachable from it through `T`'s accessors verified.
    Ok(unsafe { flatbuffers::root_unchecked::<T>(data) })
}

/// [`root_with_opts`] under the default options.
///
/// # Errors
///
/// The first problem found, with its path.
pub fn root<'buf, T>(data: &'buf [u8]) -> Result<T::Inner>
where
    T: 'buf + Follow<'buf> + Verifiable,
{
    root_with_opts::<T>(&VerifierOptions::default(), data)
}

/// [`root_with_opts`] for a buffer that starts with its `u32` size.
///
/// # Errors
///
/// The first problem found, with its path.
pub fn size_prefixed_root_with_opts<'opts, 'buf, T>(
    opts: &'opts VerifierOptions,
    data: &'buf [u8],
) -> Result<T::Inner>
where
    T: 'buf + Follow<'buf> + Verifiable,
{
    let mut v = Verifier::new(opts, data);
    <SkipSizePrefix<ForwardsUOffset<T>>>::run_verifier(&mut v, 0)?;
    // SAFETY: as in `root_with_opts`, after the size prefix.
    Ok(unsafe { flatbuffers::size_prefixed_root_unchecked::<T>(data) })
}

/// [`size_prefixed_root_with_opts`] under the default options.
///
/// # Errors
///
/// The first problem found, with its path.
pub fn size_prefixed_root<'buf, T>(data: &'buf [u8]) -> Result<T::Inner>
where
    T: 'buf + Follow<'buf> + Verifiable,
{
    size_prefixed_root_with_opts::<T>(&VerifierOptions::default(), data)
}
