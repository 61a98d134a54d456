//! The models under test, compiled by build.rs through `tinyaot_codegen::Config`, and a uniform
//! interface over them for the conformance tests.
#![allow(missing_docs)]

/// A model behind a trait object (the `tinyaot::Model` trait has associated constants, so it is not
/// object safe).
pub trait DynModel {
    /// Runs the model once.
    fn invoke(&mut self);
    /// Runs the model once through `invoke_with`, returning what its hook saw: `(true, index,
    /// name)` before each operator and `(false, index, name)` after it.
    fn invoke_recording(&mut self) -> Vec<(bool, usize, &'static str)>;
    /// Input `index` as bytes.
    fn input(&mut self, index: usize) -> &mut [u8];
    /// Output `index` as bytes.
    fn output(&self, index: usize) -> &[u8];
    /// Number of inputs and outputs.
    fn counts(&self) -> (usize, usize);
    /// Sets the state back to that of a fresh instance.
    fn reset(&mut self);
}

impl<M: tinyaot::Model> DynModel for M {
    fn invoke(&mut self) {
        tinyaot::Model::invoke(self)
    }
    fn invoke_recording(&mut self) -> Vec<(bool, usize, &'static str)> {
        let mut recorder = Recorder(Vec::new());
        tinyaot::Model::invoke_with(self, &mut recorder);
        recorder.0
    }
    fn input(&mut self, index: usize) -> &mut [u8] {
        self.input_bytes_mut(index)
    }
    fn output(&self, index: usize) -> &[u8] {
        self.output_bytes(index)
    }
    fn counts(&self) -> (usize, usize) {
        (M::INPUTS, M::OUTPUTS)
    }
    fn reset(&mut self) {
        tinyaot::Model::reset(self)
    }
}

/// An operator hook that records every call.
struct Recorder(Vec<(bool, usize, &'static str)>);

impl tinyaot::OperatorHook for Recorder {
    fn before(&mut self, index: usize, name: &'static str) {
        self.0.push((true, index, name));
    }
    fn after(&mut self, index: usize, name: &'static str) {
        self.0.push((false, index, name));
    }
}

/// What build.rs made of a model.
pub enum Outcome {
    /// Compiled: a constructor of a fresh instance (boxed, because arenas can be megabytes).
    Compiled(fn() -> Box<dyn DynModel>),
    /// Refused, with the error message.
    Refused(&'static str),
}

/// One model under test.
pub struct Entry {
    /// `fixtures` or `shared`.
    pub suite: &'static str,
    /// The file stem.
    pub name: &'static str,
    /// The directory of its TFLM goldens.
    pub golden: &'static str,
    /// What build.rs made of it.
    pub outcome: Outcome,
}

pub mod models {
    //! Generated: one module per compiled model, and [`ENTRIES`].
    use super::{Entry, Outcome};
    include!(concat!(env!("OUT_DIR"), "/models.rs"));
}
