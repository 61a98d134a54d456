//! Token and name helpers: literals, identifiers and paths, and the names' cases.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

use crate::error::{Error, Result};

/// A `usize` literal without a type suffix.
pub(super) fn lit(v: usize) -> proc_macro2::Literal {
    proc_macro2::Literal::usize_unsuffixed(v)
}

/// An integer literal without a type suffix (the field's type gives it one); negative values are a
/// minus sign and a literal, as Rust parses them.
pub(super) fn unsuffixed(v: i128) -> TokenStream {
    let magnitude = proc_macro2::Literal::u128_unsuffixed(v.unsigned_abs());
    if v < 0 {
        quote! { -#magnitude }
    } else {
        quote! { #magnitude }
    }
}

/// An exact `f32` literal (Rust's `{:?}` prints the shortest text that reads back to the same value).
pub(super) fn f32_literal(v: f32) -> TokenStream {
    if v.is_nan() {
        quote! { f32::NAN }
    } else if v == f32::INFINITY {
        quote! { f32::INFINITY }
    } else if v == f32::NEG_INFINITY {
        quote! { f32::NEG_INFINITY }
    } else {
        let text = format!("{v:?}f32");
        // `{:?}` of a finite f32 is always a valid literal (possibly with a leading minus).
        text.parse().unwrap_or_else(|_| quote! { 0.0f32 })
    }
}

pub(super) fn parse_tokens(text: &str, what: &str) -> Result<TokenStream> {
    syn::parse_str::<syn::Path>(text)
        .map(|p| quote! { #p })
        .map_err(|e| Error::Config {
            detail: format!("invalid {what} `{text}`: {e}"),
        })
}

pub(super) fn ident(name: &str) -> Result<Ident> {
    syn::parse_str::<Ident>(name)
        .map(|_| Ident::new(name, Span::call_site()))
        .map_err(|_| Error::Config {
            detail: format!("model name `{name}` is not a Rust identifier"),
        })
}

/// `PersonDetect` → `person_detect`.
pub(crate) fn snake_case(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// `person_detect` / `person-detect.v2` → `PersonDetectV2`: the default struct name for a file stem.
pub fn camel_case(stem: &str) -> String {
    let mut out = String::new();
    let mut upper = true;
    for c in stem.chars() {
        if c.is_ascii_alphanumeric() {
            if upper {
                out.extend(c.to_uppercase());
            } else {
                out.push(c);
            }
            upper = false;
        } else {
            upper = true;
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'M');
    }
    out
}
