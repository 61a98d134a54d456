//! `include_model!`: compiles a TensorFlow Lite model into Rust at build time.
//!
//! A thin shell over `tinyaot-codegen`: parse the arguments, resolve the path against the crate's
//! `CARGO_MANIFEST_DIR`, generate exactly what `tinyaot_codegen::Config` writes from a build script,
//! and report every problem as a `compile_error!` pointing at the argument at fault. Use it through
//! the runtime crate: `tinyaot::include_model!("models/net.tflite");`.
#![deny(missing_docs)]

use std::path::{Path, PathBuf};

use proc_macro::TokenStream;
use proc_macro2::Span;
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::{Ident, LitStr, Token};

/// Compiles a `.tflite` model into a `pub struct` implementing `tinyaot::Model`.
///
/// ```text
/// tinyaot::include_model!("models/person_detect.tflite");               // struct PersonDetect
/// tinyaot::include_model!("models/person_detect.tflite", name = Sensor); // struct Sensor
/// tinyaot::include_model!("models/person_detect.tflite", overlap = false);
/// ```
///
/// The path is relative to the including crate's `Cargo.toml` directory. Cargo rebuilds the crate
/// when the model file changes. `overlap = false` plans without overlaps (`Config::overlap`): no
/// operator writes its output over an input it is reading; the arena is the liveness bound.
/// `reorder = false` runs the operators in the file's order (`Config::reorder`), even where
/// another order would keep fewer bytes alive at once.
#[proc_macro]
pub fn include_model(input: TokenStream) -> TokenStream {
    let args = syn::parse_macro_input!(input as Args);
    match expand(&args) {
        Ok(tokens) => tokens,
        Err(error) => error.to_compile_error().into(),
    }
}

/// `"path"` followed by optional `, name = Ident`, `, overlap = bool` and `, reorder = bool`.
struct Args {
    path: LitStr,
    name: Option<Ident>,
    overlap: Option<syn::LitBool>,
    reorder: Option<syn::LitBool>,
}

impl Parse for Args {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.is_empty() {
            return Err(input
                .error("expected the model's path, e.g. `include_model!(\"models/net.tflite\")`"));
        }
        let path: LitStr = input.parse().map_err(|e| {
            syn::Error::new(
                e.span(),
                "expected the model's path as a string literal, e.g. \
                 `include_model!(\"models/net.tflite\")` (macros such as `concat!` and \
                 constants are not expanded here)",
            )
        })?;
        let (mut name, mut overlap, mut reorder) = (None, None, None);
        while input.parse::<Token![,]>().is_ok() {
            if input.is_empty() {
                break;
            }
            let key: Ident = input.parse()?;
            if key != "name" && key != "overlap" && key != "reorder" {
                return Err(syn::Error::new(
                    key.span(),
                    format!(
                        "unknown option `{key}`; the options are `name = StructName`, \
                         `overlap = false` and `reorder = false`"
                    ),
                ));
            }
            input.parse::<Token![=]>()?;
            let twice = if key == "name" {
                let value: Ident = input.parse().map_err(|e| {
                    syn::Error::new(
                        e.span(),
                        "`name` must be a Rust identifier, e.g. `name = Sensor`",
                    )
                })?;
                name.replace(value).is_some()
            } else {
                let value: syn::LitBool = input.parse().map_err(|e| {
                    syn::Error::new(e.span(), format!("`{key}` must be `true` or `false`"))
                })?;
                let slot = if key == "overlap" {
                    &mut overlap
                } else {
                    &mut reorder
                };
                slot.replace(value).is_some()
            };
            if twice {
                return Err(syn::Error::new(
                    key.span(),
                    format!("`{key}` is given twice"),
                ));
            }
        }
        if !input.is_empty() {
            return Err(input.error(
                "unexpected tokens; expected `, name = StructName`, `, overlap = false` or \
                 `, reorder = false`",
            ));
        }
        Ok(Args {
            path,
            name,
            overlap,
            reorder,
        })
    }
}

fn expand(args: &Args) -> syn::Result<TokenStream> {
    let span = args.path.span();
    // Messages name the model by the path as written, not as resolved: the resolved path is an
    // absolute path of this machine, which the user never wrote, and it would make the same
    // mistake read differently in every checkout (and in the UI tests' expected output).
    let written = args.path.value();
    let path = resolve(&written, span)?;
    let bytes = std::fs::read(&path).map_err(|e| {
        // The OS's wording for a missing file differs between platforms; this one is the same
        // everywhere and is by far the most common case.
        let reason = match e.kind() {
            std::io::ErrorKind::NotFound => "no such file".to_string(),
            _ => e.to_string(),
        };
        syn::Error::new(
            span,
            format!(
                "cannot read model `{written}`: {reason} (the path is relative to the directory \
                 of this crate's Cargo.toml)"
            ),
        )
    })?;
    let stem = tinyaot_codegen::config::file_stem(&path)
        .map_err(|e| syn::Error::new(span, e.to_string()))?;
    let mut config = tinyaot_codegen::Config::new();
    if let Some(name) = &args.name {
        config.name(name.to_string());
    }
    if let Some(overlap) = &args.overlap {
        config.overlap(overlap.value);
    }
    if let Some(reorder) = &args.reorder {
        config.reorder(reorder.value);
    }
    let source = config
        .generate(&bytes, &stem)
        .map_err(|e| syn::Error::new(span, format!("cannot compile `{written}`: {e}")))?;
    // The compiler's own lexer, not proc_macro2's: proc_macro2 first re-lexes the text itself to
    // validate it, which in an unoptimised build (how proc macros usually are built) takes about a
    // minute for the 13 MB of byte-string literals of a 3.5 MB model, against a fraction of a second.
    // The generated source is always well-formed, which is what that validation guards against.
    let code: TokenStream = source
        .parse()
        .map_err(|e| syn::Error::new(span, format!("internal error: generated code: {e}")))?;
    let tracked = path.to_string_lossy().into_owned();
    let mut tokens: TokenStream = quote! {
        // Makes Cargo rebuild the crate when the model changes (the bytes themselves are unused).
        const _: &[u8] = include_bytes!(#tracked);
    }
    .into();
    tokens.extend(code);
    Ok(tokens)
}

/// Resolves `path` against `CARGO_MANIFEST_DIR`; absolute paths are refused so that a crate builds
/// the same wherever it is checked out.
fn resolve(path: &str, span: Span) -> syn::Result<PathBuf> {
    if Path::new(path).is_absolute() {
        return Err(syn::Error::new(
            span,
            "the model path must be relative to the directory of this crate's Cargo.toml, not \
             absolute, so that the crate builds wherever it is checked out",
        ));
    }
    let root = std::env::var_os("CARGO_MANIFEST_DIR").ok_or_else(|| {
        syn::Error::new(
            span,
            "CARGO_MANIFEST_DIR is not set; include_model! must be expanded by Cargo",
        )
    })?;
    Ok(PathBuf::from(root).join(path))
}
