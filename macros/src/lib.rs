//! `include_model!`: compiles a TensorFlow Lite model into Rust at build time.
use proc_macro::TokenStream;

/// Placeholder.
#[proc_macro]
pub fn include_model(_input: TokenStream) -> TokenStream {
    TokenStream::new()
}
