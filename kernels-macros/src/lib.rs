//! Code generation for `strider-kernels`.
//!
//! Two function-like macros, each a pipeline `parse → valid → expand` over `proc_macro2` so every stage is
//! unit-testable; bad input becomes spanned `syn::Error`s, never a panic.
//!
//! * [`loop_nests!`](macro@loop_nests) emits the rank-specialized loop nests that walk the outer dimensions of a
//!   copy plan with pointer bumps and call a row kernel once per row.
//! * [`element_widths!`](macro@element_widths) emits the `Width` enum of the element widths the kernels are
//!   specialized for and its dispatch onto a const-generic visitor.

use proc_macro::TokenStream;

mod expand;
mod parse;
mod valid;

/// Emits `nest_0 … nest_R` (one function per outer rank, explicit nested loops) and the dispatcher `nest`.
///
/// ```text
/// strider_kernels_macros::loop_nests! {
///     row = crate::nest::Row;   // trait with `unsafe fn row(&self, src: *const u8, dst: *mut u8)`
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
