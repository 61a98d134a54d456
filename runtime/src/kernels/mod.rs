//! The kernels, one module per operator family. See the crate documentation for the calling convention.
