//! Code generation for `strider-kernels`.
//!
//! Three function-like macros and an attribute. The macros are each a pipeline `parse → valid → expand` over
//! `proc_macro2` so every stage is unit-testable; bad input becomes spanned `syn::Error`s, never a panic.
//!
//! * [`loop_nests!`](macro@loop_nests) emits the rank-specialized loop nests that walk the outer dimensions of a
//!   copy plan with pointer bumps and call a row kernel once per row.
//! * [`element_widths!`](macro@element_widths) emits the `Width` enum of the element widths the kernels are
//!   specialized for and its dispatch onto a const-generic visitor.
//! * [`element_types!`](macro@element_types) emits the element-type enum and, for every (source, destination)
//!   pair, the conversion route (which helper steps, through f32 where f16 is involved) and its dispatch table.
//! * [`#[selftests]`](macro@selftests) makes a test module's `#[test]` functions callable from outside a test build
//!   and lists them, so that one build of the kernels crate serves its own tests and everyone else's.

use proc_macro::TokenStream;

mod expand;
mod parse;
mod selftest;
mod valid;

/// Emits `nest_0 … nest_R` (one function per outer rank, explicit nested loops) and the dispatcher `nest`.
///
/// ```text
/// strider_kernels_macros::loop_nests! {
///     row = crate::rows::Rows;  // the row trait: `rows(..)` moves a run of rows, called per run
///     max_rank = 7;             // outer ranks 0..=7
/// }
/// ```
#[proc_macro]
pub fn loop_nests(input: TokenStream) -> TokenStream {
    syn::parse2::<parse::NestsInput>(input.into())
        .and_then(valid::nests)
        .map(expand::nests)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Emits `enum Width` (one variant per listed byte width), its conversions and `Width::visit`, which calls
/// `WidthVisitor::visit::<N>()` with the width as a const generic.
///
/// ```text
/// strider_kernels_macros::element_widths! { 1, 2, 3, 4, 6, 8, 12, 16 }
/// ```
#[proc_macro]
pub fn element_widths(input: TokenStream) -> TokenStream {
    syn::parse2::<parse::WidthsInput>(input.into())
        .and_then(valid::widths)
        .map(expand::widths)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Emits `enum ElemType`, the `AsCast` impls between plain types, one route type per (source, destination) pair
/// (its conversion composed from the helper steps of the `helpers` module) and `cast_fn::<A>(from, to)`, the
/// dispatch table of the pairs' functions compiled for level `A`.
///
/// ```text
/// strider_kernels_macros::element_types! {
///     helpers = crate::convert;
///     F32(f32, float), F16(u16, half), I8(i8, signed), U8(u8, unsigned), …
/// }
/// ```
///
/// Routes: the same type copies; plain pairs use Rust's `as`; f16 converts exactly to f32 first; f32 rounds to
/// f16 once; f64 rounds to odd into f32, then to f16 (one correct rounding); integers go through f32.
#[proc_macro]
pub fn element_types(input: TokenStream) -> TokenStream {
    syn::parse2::<parse::TypesInput>(input.into())
        .and_then(valid::types)
        .map(expand::types)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// On a test module of `strider-kernels` (under `#[cfg(feature = "selftest")]`): removes the `#[test]` attributes,
/// makes those functions and the module `pub(crate)` and appends `fn tests()`, the list of `(path, function)` the
/// crate's `tests/unit.rs` runs. The crate is then compiled once for every test of the workspace, not a second
/// time with `--test` for its own.
///
/// ```text
/// #[cfg(feature = "selftest")]
/// #[strider_kernels_macros::selftests]
/// mod tests {
///     #[test]
///     fn adds() { assert_eq!(1 + 1, 2) }
/// }
/// ```
#[proc_macro_attribute]
pub fn selftests(attr: TokenStream, item: TokenStream) -> TokenStream {
    selftest::expand(attr.into(), item.into()).unwrap_or_else(syn::Error::into_compile_error).into()
}
