//! Stage 1: syntax only. Values are checked in `valid`.

use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Ident, LitInt, Path, Token};

/// `row = <path>; max_rank = <int>;` in any order.
pub struct NestsInput {
    pub row: Option<(Ident, Path)>,
    pub max_rank: Option<(Ident, LitInt)>,
    /// Keys that appeared more than once or are unknown, kept for `valid` to report together.
    pub unknown: Vec<Ident>,
    pub duplicate: Vec<Ident>,
}

impl Parse for NestsInput {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut out = NestsInput { row: None, max_rank: None, unknown: Vec::new(), duplicate: Vec::new() };
        while !input.is_empty() {
            let key: Ident = input.parse()?;
            input.parse::<Token![=]>()?;
            match key.to_string().as_str() {
                "row" => {
                    let path: Path = input.parse()?;
                    if out.row.is_some() {
                        out.duplicate.push(key);
                    } else {
                        out.row = Some((key, path));
                    }
                }
                "max_rank" => {
                    let lit: LitInt = input.parse()?;
                    if out.max_rank.is_some() {
                        out.duplicate.push(key);
                    } else {
                        out.max_rank = Some((key, lit));
                    }
                }
                _ => {
                    // Skip the value so the remaining keys still parse and every problem is reported at once.
                    while !input.is_empty() && !input.peek(Token![;]) {
                        input.parse::<proc_macro2::TokenTree>()?;
                    }
                    out.unknown.push(key);
                }
            }
            if input.is_empty() {
                break;
            }
            input.parse::<Token![;]>()?;
        }
        Ok(out)
    }
}

/// A comma-separated list of integer literals.
pub struct WidthsInput {
    pub widths: Punctuated<LitInt, Token![,]>,
}

impl Parse for WidthsInput {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        Ok(WidthsInput { widths: Punctuated::parse_terminated(input)? })
    }
}

/// `helpers = <path>;` then one `Variant(rust_type, class)` entry per element type, comma-separated.
pub struct TypesInput {
    pub helpers: Path,
    pub entries: Punctuated<TypeEntry, Token![,]>,
}

/// `F32(f32, float)`: the enum variant, the Rust storage type, and the class (`float`, `half`, `signed`,
/// `unsigned`).
pub struct TypeEntry {
    pub variant: Ident,
    pub storage: Ident,
    pub class: Ident,
}

impl Parse for TypeEntry {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let variant: Ident = input.parse()?;
        let content;
        syn::parenthesized!(content in input);
        let storage: Ident = content.parse()?;
        content.parse::<Token![,]>()?;
        let class: Ident = content.parse()?;
        Ok(TypeEntry { variant, storage, class })
    }
}

impl Parse for TypesInput {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let key: Ident = input.parse()?;
        if key != "helpers" {
            return Err(syn::Error::new_spanned(&key, format!("expected `helpers = <path>;` first, found `{key}`")));
        }
        input.parse::<Token![=]>()?;
        let helpers: Path = input.parse()?;
        input.parse::<Token![;]>()?;
        Ok(TypesInput { helpers, entries: Punctuated::parse_terminated(input)? })
    }
}
