//! Stage 2: semantic checks, every problem reported with the span of the offending tokens.

use proc_macro2::Span;
use syn::{LitInt, Path};

use crate::parse::{NestsInput, TypesInput, WidthsInput};

/// The largest outer rank a nest may be generated for: DirectML tensors have at most 8 dimensions and the row
/// kernel consumes the innermost one, but the macro itself allows some headroom.
pub const MAX_SUPPORTED_RANK: usize = 15;
/// The largest element width (bytes) the width dispatch accepts.
pub const MAX_WIDTH: usize = 64;

pub struct Nests {
    pub row: Path,
    pub max_rank: usize,
}

pub struct Widths {
    pub widths: Vec<(usize, Span)>,
}

/// The numeric class of an element type: how values convert.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// IEEE binary32 or binary64 (`f32`, `f64`).
    Float,
    /// IEEE binary16, stored as `u16` bits.
    Half,
    /// Two's-complement integer.
    Signed,
    /// Unsigned integer.
    Unsigned,
}

/// One validated element type.
pub struct Ty {
    pub variant: syn::Ident,
    /// The Rust type that holds an element (`u16` for a half).
    pub storage: syn::Ident,
    pub class: Class,
    /// Bytes per element.
    pub width: usize,
}

pub struct Types {
    pub helpers: Path,
    pub types: Vec<Ty>,
}

/// Storage types the generator knows, with their widths and the classes they may have.
fn storage(name: &str) -> Option<(usize, &'static [Class])> {
    Some(match name {
        "f32" => (4, &[Class::Float]),
        "f64" => (8, &[Class::Float]),
        "u16" => (2, &[Class::Unsigned, Class::Half]),
        "i8" | "i16" | "i32" | "i64" => (name[1..].parse::<usize>().ok()? / 8, &[Class::Signed]),
        "u8" | "u32" | "u64" => (name[1..].parse::<usize>().ok()? / 8, &[Class::Unsigned]),
        _ => return None,
    })
}

pub fn types(input: TypesInput) -> syn::Result<Types> {
    let mut errors = Vec::new();
    let mut out: Vec<Ty> = Vec::new();
    for e in &input.entries {
        let class = match e.class.to_string().as_str() {
            "float" => Class::Float,
            "half" => Class::Half,
            "signed" => Class::Signed,
            "unsigned" => Class::Unsigned,
            other => {
                errors.push(syn::Error::new_spanned(
                    &e.class,
                    format!("unknown class `{other}`: expected `float`, `half`, `signed` or `unsigned`"),
                ));
                continue;
            }
        };
        let Some((width, classes)) = storage(&e.storage.to_string()) else {
            errors.push(syn::Error::new_spanned(
                &e.storage,
                format!("`{}` is not a storage type the conversions know (f32, f64, i8..i64, u8..u64)", e.storage),
            ));
            continue;
        };
        if !classes.contains(&class) {
            errors.push(syn::Error::new_spanned(
                &e.class,
                format!("`{}` cannot hold a `{}` element", e.storage, e.class),
            ));
            continue;
        }
        if out.iter().any(|t| t.variant == e.variant) {
            errors.push(syn::Error::new_spanned(&e.variant, format!("`{}` is listed twice", e.variant)));
            continue;
        }
        if out.iter().any(|t| t.storage == e.storage && t.class == class) {
            errors.push(syn::Error::new_spanned(&e.storage, format!("two entries are `{}` {:?}", e.storage, class)));
            continue;
        }
        out.push(Ty { variant: e.variant.clone(), storage: e.storage.clone(), class, width });
    }
    if out.is_empty() && errors.is_empty() {
        errors.push(syn::Error::new(Span::call_site(), "element_types! needs at least one type"));
    }
    // A half converts through f32: the route generator needs an f32 entry beside it.
    if let Some(h) = out.iter().find(|t| t.class == Class::Half)
        && !out.iter().any(|t| t.storage == "f32")
    {
        errors.push(syn::Error::new_spanned(&h.variant, "a `half` type needs an `f32` entry to convert through"));
    }
    if out.iter().filter(|t| t.class == Class::Half).count() > 1 {
        errors.push(syn::Error::new(Span::call_site(), "at most one `half` type"));
    }
    combine(errors)?;
    Ok(Types { helpers: input.helpers, types: out })
}

/// Folds several errors into one so the user sees all of them in a single build.
fn combine(errors: Vec<syn::Error>) -> syn::Result<()> {
    let mut iter = errors.into_iter();
    match iter.next() {
        None => Ok(()),
        Some(mut first) => {
            for e in iter {
                first.combine(e);
            }
            Err(first)
        }
    }
}

pub fn nests(input: NestsInput) -> syn::Result<Nests> {
    let mut errors = Vec::new();
    for key in &input.unknown {
        errors.push(syn::Error::new_spanned(key, format!("unknown key `{key}`: expected `row` or `max_rank`")));
    }
    for key in &input.duplicate {
        errors.push(syn::Error::new_spanned(key, format!("`{key}` is given more than once")));
    }
    let max_rank = match &input.max_rank {
        None => {
            errors.push(syn::Error::new(Span::call_site(), "missing `max_rank = <outer rank>;`"));
            None
        }
        Some((_, lit)) => match rank(lit) {
            Ok(r) => Some(r),
            Err(e) => {
                errors.push(e);
                None
            }
        },
    };
    if input.row.is_none() {
        errors.push(syn::Error::new(Span::call_site(), "missing `row = <path to the row-kernel trait>;`"));
    }
    combine(errors)?;
    match (input.row, max_rank) {
        (Some((_, row)), Some(max_rank)) => Ok(Nests { row, max_rank }),
        _ => unreachable_combined(),
    }
}

/// `combine` returned `Ok` only when every value was present; this keeps the match total without a panic.
fn unreachable_combined<T>() -> syn::Result<T> {
    Err(syn::Error::new(Span::call_site(), "internal error: loop_nests! validation lost a value"))
}

fn rank(lit: &LitInt) -> syn::Result<usize> {
    let r: usize = lit.base10_parse()?;
    if r > MAX_SUPPORTED_RANK {
        return Err(syn::Error::new_spanned(
            lit,
            format!("max_rank {r} is too large: at most {MAX_SUPPORTED_RANK} outer dimensions are supported"),
        ));
    }
    Ok(r)
}

pub fn widths(input: WidthsInput) -> syn::Result<Widths> {
    let mut errors = Vec::new();
    let mut out: Vec<(usize, Span)> = Vec::new();
    if input.widths.is_empty() {
        return Err(syn::Error::new(Span::call_site(), "element_widths! needs at least one width"));
    }
    for lit in &input.widths {
        let w: usize = match lit.base10_parse() {
            Ok(w) => w,
            Err(e) => {
                errors.push(e);
                continue;
            }
        };
        if w == 0 || w > MAX_WIDTH {
            errors.push(syn::Error::new_spanned(lit, format!("width {w} is out of range 1..={MAX_WIDTH} bytes")));
            continue;
        }
        if let Some(&(prev, _)) = out.last() {
            if w == prev || out.iter().any(|&(p, _)| p == w) {
                errors.push(syn::Error::new_spanned(lit, format!("width {w} is listed twice")));
                continue;
            }
            if w < prev {
                errors.push(syn::Error::new_spanned(
                    lit,
                    format!("width {w} comes after {prev}: list the widths in ascending order"),
                ));
                continue;
            }
        }
        out.push((w, lit.span()));
    }
    combine(errors)?;
    Ok(Widths { widths: out })
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn nests_of(ts: proc_macro2::TokenStream) -> syn::Result<Nests> {
        nests(syn::parse2(ts)?)
    }

    fn widths_of(ts: proc_macro2::TokenStream) -> syn::Result<Widths> {
        widths(syn::parse2(ts)?)
    }

    #[test]
    fn nests_accepts_both_keys_in_any_order() {
        let n = nests_of(quote!(max_rank = 7; row = crate::Row;)).unwrap();
        assert_eq!(n.max_rank, 7);
        let n = nests_of(quote!(row = crate::Row; max_rank = 0)).unwrap();
        assert_eq!(n.max_rank, 0);
    }

    #[test]
    fn nests_reports_every_problem() {
        let e = nests_of(quote!(rows = crate::Row; max_rank = 99;)).err().unwrap();
        let msgs: Vec<String> = e.into_iter().map(|e| e.to_string()).collect();
        assert!(msgs.iter().any(|m| m.contains("unknown key `rows`")), "{msgs:?}");
        assert!(msgs.iter().any(|m| m.contains("max_rank 99 is too large")), "{msgs:?}");
        assert!(msgs.iter().any(|m| m.contains("missing `row")), "{msgs:?}");
    }

    #[test]
    fn nests_rejects_duplicates() {
        let e = nests_of(quote!(row = a::R; row = b::R; max_rank = 1;)).err().unwrap();
        assert!(e.to_string().contains("`row` is given more than once"));
    }

    fn types_of(ts: proc_macro2::TokenStream) -> syn::Result<Types> {
        types(syn::parse2(ts)?)
    }

    #[test]
    fn types_classify_and_measure() {
        let t = types_of(quote!(helpers = crate::h; F32(f32, float), F16(u16, half), I8(i8, signed))).unwrap();
        let got: Vec<(String, usize, Class)> =
            t.types.iter().map(|t| (t.variant.to_string(), t.width, t.class)).collect();
        assert_eq!(
            got,
            [("F32".into(), 4, Class::Float), ("F16".into(), 2, Class::Half), ("I8".into(), 1, Class::Signed)]
        );
    }

    #[test]
    fn types_report_every_problem() {
        let msgs = |ts| -> Vec<String> { types_of(ts).err().unwrap().into_iter().map(|e| e.to_string()).collect() };
        let m =
            msgs(quote!(helpers = h; A(f32, fuzzy), B(f128, float), C(i8, float), D(u8, unsigned), D(u16, unsigned)));
        assert!(m.iter().any(|m| m.contains("unknown class `fuzzy`")), "{m:?}");
        assert!(m.iter().any(|m| m.contains("`f128` is not a storage type")), "{m:?}");
        assert!(m.iter().any(|m| m.contains("`i8` cannot hold a `float`")), "{m:?}");
        assert!(m.iter().any(|m| m.contains("`D` is listed twice")), "{m:?}");
        assert!(msgs(quote!(helpers = h; H(u16, half)))[0].contains("needs an `f32` entry"));
        assert!(msgs(quote!(helpers = h;))[0].contains("at least one type"));
        assert!(types_of(quote!(helper = h; A(f32, float))).is_err());
    }

    #[test]
    fn widths_checks_range_order_and_uniqueness() {
        assert_eq!(widths_of(quote!(1, 2, 4, 8)).unwrap().widths.len(), 4);
        let msgs = |ts| -> Vec<String> { widths_of(ts).err().unwrap().into_iter().map(|e| e.to_string()).collect() };
        assert!(msgs(quote!(0, 2))[0].contains("width 0 is out of range"));
        assert!(msgs(quote!(1, 2, 2))[0].contains("width 2 is listed twice"));
        assert!(msgs(quote!(4, 2))[0].contains("ascending order"));
        assert!(msgs(quote!())[0].contains("at least one width"));
        assert_eq!(msgs(quote!(0, 4, 2, 65)).len(), 3);
    }
}
