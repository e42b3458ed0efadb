//! Stage 2: semantic checks, every problem reported with the span of the offending tokens.

use proc_macro2::Span;
use syn::{LitInt, Path};

use crate::parse::{NestsInput, WidthsInput};

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
