//! Typed views of bytes: constant data in flash ([`Flash`]) and tensors in the arena.
//!
//! Generated code keeps weights as byte-string literals (fast to compile, exact) inside a 16-byte
//! aligned [`Flash`] and takes typed slices of them in `static` initializers, so it needs no `unsafe`
//! of its own. All multi-byte data is little-endian, which is what every supported target is.

#[cfg(target_endian = "big")]
compile_error!("tinyaot's data layout is little-endian; big-endian targets are not supported");

/// `N` constant bytes, 16-byte aligned, typically a `static` in flash.
#[repr(C, align(16))]
pub struct Flash<const N: usize>(pub [u8; N]);

impl<const N: usize> Flash<N> {
    /// The bytes.
    pub const fn bytes(&self) -> &[u8] {
        &self.0
    }

    /// The bytes as `i8`s.
    pub const fn as_i8(&self) -> &[i8] {
        // SAFETY: u8 and i8 have the same size and alignment and all bit patterns are valid for both.
        unsafe { core::slice::from_raw_parts(self.0.as_ptr() as *const i8, N) }
    }

    /// The bytes as little-endian `i16`s (`N` must be a multiple of 2; a remainder is ignored).
    pub const fn as_i16(&self) -> &[i16] {
        // SAFETY: the data is 16-byte aligned (repr align), N / 2 elements fit in N bytes, the
        // target is little-endian and every bit pattern is a valid i16.
        unsafe { core::slice::from_raw_parts(self.0.as_ptr() as *const i16, N / 2) }
    }

    /// The bytes as little-endian `i32`s (`N` must be a multiple of 4; a remainder is ignored).
    pub const fn as_i32(&self) -> &[i32] {
        // SAFETY: as for `as_i16`, with 4-byte elements.
        unsafe { core::slice::from_raw_parts(self.0.as_ptr() as *const i32, N / 4) }
    }

    /// The bytes as little-endian `i64`s (`N` must be a multiple of 8; a remainder is ignored).
    pub const fn as_i64(&self) -> &[i64] {
        // SAFETY: as for `as_i16`, with 8-byte elements (the data is 16-byte aligned).
        unsafe { core::slice::from_raw_parts(self.0.as_ptr() as *const i64, N / 8) }
    }

    /// The bytes as little-endian `f32`s (`N` must be a multiple of 4; a remainder is ignored).
    pub const fn as_f32(&self) -> &[f32] {
        // SAFETY: as for `as_i32`; every bit pattern is a valid f32.
        unsafe { core::slice::from_raw_parts(self.0.as_ptr() as *const f32, N / 4) }
    }
}

/// Element types a tensor in the arena can be viewed as.
pub trait Element: sealed::Sealed + Copy {}
impl Element for u8 {}
impl Element for i8 {}
impl Element for i16 {}
impl Element for i32 {}
impl Element for f32 {}

mod sealed {
    pub trait Sealed {}
    impl Sealed for u8 {}
    impl Sealed for i8 {}
    impl Sealed for i16 {}
    impl Sealed for i32 {}
    impl Sealed for f32 {}
}

/// The `N` elements of type `T` at byte `offset` of `arena`, for the typed input accessors of
/// generated models. Panics if the range is outside the arena or misaligned for `T` (generated code
/// only passes planned offsets, which are 16-byte aligned within a 16-byte aligned arena).
pub fn array_mut<T: Element, const N: usize>(arena: &mut [u8], offset: usize) -> &mut [T; N] {
    let bytes = &mut arena[offset..offset + N * core::mem::size_of::<T>()];
    assert!((bytes.as_ptr() as usize).is_multiple_of(core::mem::align_of::<T>()));
    // SAFETY: the range is in bounds and holds exactly N * size_of::<T>() bytes (sliced above), it is
    // aligned for T (asserted), T is a plain number type for which every bit pattern is valid, and
    // the exclusive borrow of `arena` is carried by the result.
    unsafe { &mut *(bytes.as_mut_ptr() as *mut [T; N]) }
}

/// Shared counterpart of [`array_mut`], for the typed output accessors.
pub fn array<T: Element, const N: usize>(arena: &[u8], offset: usize) -> &[T; N] {
    let bytes = &arena[offset..offset + N * core::mem::size_of::<T>()];
    assert!((bytes.as_ptr() as usize).is_multiple_of(core::mem::align_of::<T>()));
    // SAFETY: as for `array_mut`, with a shared borrow.
    unsafe { &*(bytes.as_ptr() as *const [T; N]) }
}

/// Reads the little-endian `f32` at element `index` of `bytes`.
#[inline(always)]
pub fn read_f32(bytes: &[u8], index: usize) -> f32 {
    let b = &bytes[index * 4..index * 4 + 4];
    f32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flash_views_are_little_endian() {
        static F: Flash<8> = Flash(*b"\x01\x00\x00\x00\xff\xff\xff\xff");
        assert_eq!(F.as_i32(), &[1, -1]);
        assert_eq!(F.as_i8()[4], -1);
        assert_eq!(F.as_i16(), &[1, 0, -1, -1]);
    }

    #[test]
    fn arena_arrays() {
        let mut arena = crate::Arena::<32>::new();
        let x: &mut [f32; 2] = array_mut(&mut arena.0, 16);
        x[1] = 2.5;
        assert_eq!(read_f32(&arena.0, 5), 2.5);
        let y: &[i8; 4] = array(&arena.0, 0);
        assert_eq!(y, &[0; 4]);
    }
}
