//! PLACEHOLDER until the generated schema lands.
#[allow(missing_docs)]
pub mod tflite {
    #[derive(Clone, Copy)]
    pub struct BuiltinOperator(pub i32);
    impl BuiltinOperator {
        pub fn variant_name(self) -> Option<&'static str> {
            None
        }
    }
}
