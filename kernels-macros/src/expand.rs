//! Stage 3: code emission. Emitted code names everything by absolute path and uses mixed-site spans for its
//! locals, so it neither captures nor is captured by the caller's names.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::Ident;

use crate::valid::{Nests, Ty, Types, Widths};

fn local(name: &str, k: usize) -> Ident {
    format_ident!("{}_{}", name, k, span = Span::mixed_site())
}

/// Level `k` of an outer nest of rank `rank` (`k < rank`). Each level keeps its own pointers (input, output and the
/// auxiliary operand), bumped by their strides once per iteration; an inner level starts from its parent's pointers.
/// Only the first entry into a level starts at the chunk's start coordinate; later entries start at 0. The innermost
/// level is not a loop: it hands its whole run of rows to the row kernel in one `rows` call, so an out-of-line
/// kernel costs one call per run.
fn level(k: usize, rank: usize) -> TokenStream {
    let i = local("i", k);
    let e = local("e", k);
    let is = local("is", k);
    let os = local("os", k);
    let xs = local("xs", k);
    let s = local("s", k);
    let d = local("d", k);
    let x = local("x", k);
    let left = Ident::new("left", Span::mixed_site());
    let row = Ident::new("row", Span::mixed_site());

    let enter = if k == 0 {
        quote! {}
    } else {
        let first = local("first", k);
        let (ps, pd, px) = (local("s", k - 1), local("d", k - 1), local("x", k - 1));
        quote! {
            let mut #i = #first;
            #first = 0;
            let mut #s = #ps.wrapping_offset(#i as isize * #is);
            let mut #d = #pd.wrapping_offset(#i as isize * #os);
            let mut #x = #px.wrapping_offset(#i as isize * #xs);
        }
    };

    if k + 1 == rank {
        let m = Ident::new("m", Span::mixed_site());
        return quote! {
            #enter
            let #m = if #e - #i < #left { #e - #i } else { #left };
            // SAFETY: the caller guarantees that every row of the walked range is in bounds for the row kernel;
            // these are rows i..i+m of this level.
            unsafe { #row.rows(#s, #d, #x, #m, #is, #os, #xs) };
            #left -= #m;
            if #left == 0 {
                return;
            }
        };
    }

    let body = level(k + 1, rank);
    quote! {
        #enter
        loop {
            #body
            #i += 1;
            if #i == #e {
                break;
            }
            #s = #s.wrapping_offset(#is);
            #d = #d.wrapping_offset(#os);
            #x = #x.wrapping_offset(#xs);
        }
    }
}

fn nest_fn(rank: usize, m: usize, row_trait: &syn::Path) -> TokenStream {
    let name = format_ident!("nest_{}", rank);
    let row = Ident::new("row", Span::mixed_site());
    let left = Ident::new("left", Span::mixed_site());
    let doc = format!(
        "Walks `count` rows of a plan with {rank} outer dimension(s), starting at coordinates `start`: explicit \
         loops over the outer dimensions but the innermost, whose runs of rows go to the row kernel in one \
         (dynamically dispatched) `rows` call each. Not generic: one function per rank, whatever the kernel."
    );
    let safety = "\n\n# Safety\n\n`src`/`dst`/`aux` point at the coordinates (0, …, 0) of the outer dimensions; every \
                  row of the `count` rows starting at `start` (in row-major order of `extents`) must be valid for \
                  the row kernel; `start[k] < extents[k]` and `count` does not exceed the rows left.";
    if rank == 0 {
        return quote! {
            #[doc = #doc]
            #[doc = #safety]
            #[inline(never)]
            #[allow(clippy::too_many_arguments, unused_variables)]
            pub(crate) unsafe fn #name(
                #row: &dyn #row_trait,
                src: *const u8,
                dst: *mut u8,
                aux: *const u8,
                extents: &[usize; #m],
                in_strides: &[isize; #m],
                out_strides: &[isize; #m],
                aux_strides: &[isize; #m],
                start: &[usize; #m],
                count: usize,
            ) {
                if count != 0 {
                    // SAFETY: forwarded from this function's contract.
                    unsafe { #row.rows(src, dst, aux, 1, 0, 0, 0) };
                }
            }
        };
    }
    let loads = (0..rank).map(|k| {
        let (e, is, os, xs) = (local("e", k), local("is", k), local("os", k), local("xs", k));
        quote! {
            let #e = extents[#k];
            let #is = in_strides[#k];
            let #os = out_strides[#k];
            let #xs = aux_strides[#k];
        }
    });
    let firsts = (1..rank).map(|k| {
        let first = local("first", k);
        quote! { let mut #first = start[#k]; }
    });
    let (i0, s0, d0, x0) = (local("i", 0), local("s", 0), local("d", 0), local("x", 0));
    let (is0, os0, xs0) = (local("is", 0), local("os", 0), local("xs", 0));
    let outer = level(0, rank);
    quote! {
        #[doc = #doc]
        #[doc = #safety]
        #[inline(never)]
        // The innermost level's counter and pointers are declared like the loops' but never bumped.
        #[allow(clippy::too_many_arguments, unused_mut)]
        pub(crate) unsafe fn #name(
            #row: &dyn #row_trait,
            src: *const u8,
            dst: *mut u8,
            aux: *const u8,
            extents: &[usize; #m],
            in_strides: &[isize; #m],
            out_strides: &[isize; #m],
            aux_strides: &[isize; #m],
            start: &[usize; #m],
            count: usize,
        ) {
            if count == 0 {
                return;
            }
            let mut #left = count;
            #(#loads)*
            #(#firsts)*
            let mut #i0 = start[0];
            let mut #s0 = src.wrapping_offset(#i0 as isize * #is0);
            let mut #d0 = dst.wrapping_offset(#i0 as isize * #os0);
            let mut #x0 = aux.wrapping_offset(#i0 as isize * #xs0);
            #outer
        }
    }
}

pub fn nests(n: Nests) -> TokenStream {
    let m = n.max_rank.max(1);
    let fns = (0..=n.max_rank).map(|r| nest_fn(r, m, &n.row));
    let arms = (0..=n.max_rank).map(|r| {
        let name = format_ident!("nest_{}", r);
        quote! {
            // SAFETY: forwarded from this function's contract.
            #r => unsafe { #name(row, src, dst, aux, extents, in_strides, out_strides, aux_strides, start, count) },
        }
    });
    let row_trait = &n.row;
    let max = n.max_rank;
    quote! {
        /// The largest outer rank a generated nest walks.
        pub(crate) const MAX_OUTER_RANK: usize = #max;
        /// Length of the per-dimension arrays the nests take.
        pub(crate) const NEST_ARRAY_LEN: usize = #m;

        #(#fns)*

        /// Calls the nest specialized for `rank` outer dimensions.
        ///
        /// # Safety
        ///
        /// As for `nest_0` … `nest_N`; `rank <= MAX_OUTER_RANK`.
        #[inline(always)]
        #[allow(clippy::too_many_arguments)]
        pub(crate) unsafe fn nest(
            rank: usize,
            row: &dyn #row_trait,
            src: *const u8,
            dst: *mut u8,
            aux: *const u8,
            extents: &[usize; #m],
            in_strides: &[isize; #m],
            out_strides: &[isize; #m],
            aux_strides: &[isize; #m],
            start: &[usize; #m],
            count: usize,
        ) {
            match rank {
                #(#arms)*
                // The caller guarantees rank <= MAX_OUTER_RANK; a larger rank is a broken invariant, not a
                // reason to return without writing.
                _ => ::core::panic!("outer rank {} exceeds the generated nests", rank),
            }
        }
    }
}

pub fn widths(w: Widths) -> TokenStream {
    let variants: Vec<Ident> = w.widths.iter().map(|&(b, span)| format_ident!("W{}", b, span = span)).collect();
    let sizes: Vec<usize> = w.widths.iter().map(|&(b, _)| b).collect();
    let bytes: Vec<proc_macro2::Literal> = sizes.iter().map(|&b| proc_macro2::Literal::usize_unsuffixed(b)).collect();
    let discr = &bytes;
    let count = sizes.len();
    let docs = sizes.iter().map(|b| format!("Elements of {b} byte(s)."));
    let list = sizes.iter().map(|b| b.to_string()).collect::<Vec<_>>().join(", ");
    let enum_doc = format!("An element width (bytes) the kernels are specialized for: {list}.");
    quote! {
        #[doc = #enum_doc]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum Width {
            #( #[doc = #docs] #variants = #discr, )*
        }

        impl Width {
            /// Every width, ascending.
            pub const ALL: [Width; #count] = [ #( Width::#variants ),* ];

            /// The width in bytes.
            #[inline(always)]
            pub const fn bytes(self) -> usize {
                self as usize
            }

            /// The width of `bytes` bytes, if the kernels are specialized for it.
            pub const fn from_bytes(bytes: usize) -> ::core::option::Option<Width> {
                match bytes {
                    #( #bytes => ::core::option::Option::Some(Width::#variants), )*
                    _ => ::core::option::Option::None,
                }
            }

            /// Calls `visitor.visit::<N>()` with `N` = this width in bytes.
            #[inline(always)]
            pub fn visit<V: WidthVisitor>(self, visitor: V) -> V::Output {
                match self {
                    #( Width::#variants => visitor.visit::<#bytes>(), )*
                }
            }
        }

        /// Code that is generic over the element width, reached through [`Width::visit`].
        pub trait WidthVisitor {
            /// What the visit returns.
            type Output;
            /// Runs with `N` = the element width in bytes.
            fn visit<const N: usize>(self) -> Self::Output;
        }
    }
}

/// How one (source, destination) pair converts: which helper steps, in which order.
enum Route<'a> {
    /// Same type: the bytes are copied.
    Same,
    /// Rust `as` between two plain types.
    Plain,
    /// Float → integer through `FloatToInt` (Rust's `as` semantics).
    FloatToInt,
    /// One helper step (`f16 → f32`, `f32 → f16`).
    Step(&'static str),
    /// Two steps through a block of f32: first into f32, then out of it.
    ViaF32 { first: Step<'a>, second: Step<'a> },
}

/// One step of a two-step route.
enum Step<'a> {
    /// A helper function (`f16_to_f32`, `f32_to_f16`, `f64_to_f32_odd`).
    Helper(&'static str),
    /// `plain::<A, from, to>`.
    Plain(&'a Ident, &'a Ident),
    /// `float_to_int::<A, from, to>`.
    FloatToInt(&'a Ident, &'a Ident),
}

fn route<'a>(s: &'a Ty, d: &'a Ty, f32_ty: Option<&'a Ident>) -> Route<'a> {
    use crate::valid::Class::{Float, Half, Signed, Unsigned};
    if s.variant == d.variant {
        return Route::Same;
    }
    let f32_ty = f32_ty.expect("validated: a half has an f32 beside it");
    match (s.class, d.class) {
        (Half, _) if d.storage == "f32" => Route::Step("f16_to_f32"),
        (Half, Signed | Unsigned) => {
            Route::ViaF32 { first: Step::Helper("f16_to_f32"), second: Step::FloatToInt(f32_ty, &d.storage) }
        }
        (Half, _) => Route::ViaF32 { first: Step::Helper("f16_to_f32"), second: Step::Plain(f32_ty, &d.storage) },
        (_, Half) if s.storage == "f32" => Route::Step("f32_to_f16"),
        // Round to odd into f32, then once to nearest even into f16: the same result as one rounding of the exact
        // value (f32 carries more than two extra bits of precision).
        (Float, Half) => Route::ViaF32 { first: Step::Helper("f64_to_f32_odd"), second: Step::Helper("f32_to_f16") },
        // Integers: to f32 (exact below 2^24; anything larger overflows f16 to infinity either way), then round.
        (_, Half) => Route::ViaF32 { first: Step::Plain(&s.storage, f32_ty), second: Step::Helper("f32_to_f16") },
        // Float → integer: clamp into range, convert, patch the saturated ends (vectorizes, unlike `as`).
        (Float, Signed | Unsigned) => Route::FloatToInt,
        _ => Route::Plain,
    }
}

fn describe(s: &Ty, d: &Ty, r: &Route<'_>) -> String {
    let name = |t: &Ty| if t.class == crate::valid::Class::Half { "f16".to_owned() } else { t.storage.to_string() };
    match r {
        Route::Same => format!("{} (copy)", name(s)),
        Route::Plain | Route::Step(_) | Route::FloatToInt => format!("{} → {}", name(s), name(d)),
        Route::ViaF32 { first: Step::Helper("f64_to_f32_odd"), .. } => {
            format!("{} → f32 (round to odd) → {}", name(s), name(d))
        }
        Route::ViaF32 { .. } => format!("{} → f32 → {}", name(s), name(d)),
    }
}

fn step_call(h: &syn::Path, step: &Step<'_>, src: TokenStream, dst: TokenStream, n: TokenStream) -> TokenStream {
    match step {
        Step::Helper(f) => {
            let f = Ident::new(f, Span::call_site());
            quote! { #h::#f::<A>(a, #src, #dst, #n) }
        }
        Step::Plain(from, to) => quote! { #h::plain::<A, #from, #to>(a, #src, #dst, #n) },
        Step::FloatToInt(from, to) => quote! { #h::float_to_int::<A, #from, #to, false>(a, #src, #dst, #n) },
    }
}

/// `impl FloatToInt<D> for S`: Rust's `as` from a float to an integer (toward zero, saturating, NaN → 0), or
/// round-half-to-even then saturate, in a form that vectorizes. The value is clamped into the integer's range before
/// the unchecked conversion (so it is always defined), and the ends the clamp cannot express are patched.
fn float_to_int_impl(s: &Ident, d: &Ident, signed: bool) -> TokenStream {
    quote! {
        impl FloatToInt<#d> for #s {
            #[inline(always)]
            fn float_to_int<const NEAREST: bool>(self) -> #d {
                // D::MIN is 0 or a power of two: exact. D::MAX as S is exact, or rounds up to the next power of two.
                const LO: #s = #d::MIN as #s;
                const TOP: #s = #d::MAX as #s;
                const EXACT: bool = TOP as i128 == #d::MAX as i128;
                // The largest float not above D::MAX.
                const HI: #s = if EXACT { TOP } else { #s::from_bits(TOP.to_bits() - 1) };
                let x = if NEAREST { self.round_ties_even() } else { self };
                // `if x > LO` is false for NaN: NaN becomes LO here (maxps semantics).
                let c = if x > LO { x } else { LO };
                let c = if c < HI { c } else { HI };
                // SAFETY: c is finite and lies in [D::MIN, D::MAX] (clamped above).
                let v: #d = unsafe { c.to_int_unchecked() };
                let v = if !EXACT && x >= TOP { #d::MAX } else { v };
                if #signed && x != x { 0 } else { v }
            }
        }
    }
}

pub fn types(t: Types) -> TokenStream {
    use crate::valid::Class;
    let h = &t.helpers;
    let variants: Vec<&Ident> = t.types.iter().map(|t| &t.variant).collect();
    let count = variants.len();
    let widths: Vec<usize> = t.types.iter().map(|t| t.width).collect();
    let names: Vec<String> =
        t.types.iter().map(|t| if t.class == Class::Half { "f16".to_owned() } else { t.storage.to_string() }).collect();
    let floats: Vec<bool> = t.types.iter().map(|t| matches!(t.class, Class::Float | Class::Half)).collect();
    let signed: Vec<bool> =
        t.types.iter().map(|t| matches!(t.class, Class::Float | Class::Half | Class::Signed)).collect();
    let f32_ty = t.types.iter().find(|t| t.storage == "f32").map(|t| &t.storage);

    // `as` between every pair of plain (non-half) types.
    let plain: Vec<&Ty> = t.types.iter().filter(|t| t.class != Class::Half).collect();
    let as_impls = plain.iter().flat_map(|s| {
        plain.iter().map(move |d| {
            let (s, d) = (&s.storage, &d.storage);
            quote! {
                impl AsCast<#d> for #s {
                    #[inline(always)]
                    fn as_cast(self) -> #d {
                        self as #d
                    }
                }
            }
        })
    });

    let ints: Vec<&Ty> = t.types.iter().filter(|t| matches!(t.class, Class::Signed | Class::Unsigned)).collect();
    let float_to_int =
        t.types.iter().filter(|t| t.class == Class::Float).flat_map(|s| {
            ints.iter().map(move |d| float_to_int_impl(&s.storage, &d.storage, d.class == Class::Signed))
        });

    let mut routes = Vec::new();
    let mut arms = Vec::new();
    let mut descriptions = Vec::new();
    for s in &t.types {
        for d in &t.types {
            let name = format_ident!("{}To{}", s.variant, d.variant);
            let r = route(s, d, f32_ty);
            let (sw, dw) = (s.width, d.width);
            let body = match &r {
                Route::Same => quote! { #h::same(src, dst, n * #sw) },
                Route::Plain => {
                    let (ss, ds) = (&s.storage, &d.storage);
                    quote! { #h::plain::<A, #ss, #ds>(a, src, dst, n) }
                }
                Route::Step(f) => {
                    let f = Ident::new(f, Span::call_site());
                    quote! { #h::#f::<A>(a, src, dst, n) }
                }
                Route::FloatToInt => {
                    let (ss, ds) = (&s.storage, &d.storage);
                    quote! { #h::float_to_int::<A, #ss, #ds, false>(a, src, dst, n) }
                }
                Route::ViaF32 { first, second } => {
                    let one =
                        step_call(h, first, quote!(src.add(i * #sw)), quote!(buf.as_mut_ptr().cast::<u8>()), quote!(c));
                    let two =
                        step_call(h, second, quote!(buf.as_ptr().cast::<u8>()), quote!(dst.add(i * #dw)), quote!(c));
                    quote! {
                        let mut buf = [0f32; #h::BLOCK];
                        let mut i = 0usize;
                        while i < n {
                            let c = if n - i < #h::BLOCK { n - i } else { #h::BLOCK };
                            #one;
                            #two;
                            i += c;
                        }
                    }
                }
            };
            let text = describe(s, d, &r);
            let doc = format!("Converts {text}.");
            routes.push(quote! {
                #[doc = #doc]
                pub(crate) struct #name;

                impl #h::Route for #name {
                    #[inline(always)]
                    #[allow(unused_variables, unused_unsafe)]
                    unsafe fn run<A: #h::Arch>(a: A, src: *const u8, dst: *mut u8, n: usize) {
                        // The helpers' contracts are this function's (the `Route` trait's).
                        unsafe { #body }
                    }
                }
            });
            let (sv, dv) = (&s.variant, &d.variant);
            arms.push(quote! { (ElemType::#sv, ElemType::#dv) => #h::entry::<A, routes::#name> });
            descriptions.push(quote! { (ElemType::#sv, ElemType::#dv) => #text });
        }
    }

    // f32 → each type rounded to nearest (normalization's output conversion): integers round half to even and
    // saturate; the float routes already round to nearest (or are exact).
    let f32_variant = t.types.iter().find(|t| t.storage == "f32" && t.class == Class::Float).map(|t| &t.variant);
    let mut nearest_routes = Vec::new();
    let mut nearest_arms = Vec::new();
    if let (Some(fv), Some(fs)) = (f32_variant, f32_ty) {
        for d in &t.types {
            let dv = &d.variant;
            if matches!(d.class, Class::Signed | Class::Unsigned) {
                let name = format_ident!("F32To{}Nearest", d.variant);
                let ds = &d.storage;
                let doc = format!("Converts f32 → {} rounding half to even, then saturating (NaN → 0).", d.storage);
                // One-byte integers through the levels' Normalize kernels (see the helper).
                let body = if d.width == 1 {
                    let signed = d.class == Class::Signed;
                    quote! { #h::f32_to_bytes_nearest::<A, #ds, #signed>(a, src, dst, n) }
                } else {
                    quote! { #h::float_to_int::<A, #fs, #ds, true>(a, src, dst, n) }
                };
                nearest_routes.push(quote! {
                    #[doc = #doc]
                    pub(crate) struct #name;

                    impl #h::Route for #name {
                        #[inline(always)]
                        unsafe fn run<A: #h::Arch>(a: A, src: *const u8, dst: *mut u8, n: usize) {
                            // SAFETY: the helper's contract is this function's (the `Route` trait's).
                            unsafe { #body }
                        }
                    }
                });
                nearest_arms.push(quote! { ElemType::#dv => #h::entry::<A, nearest::#name> });
            } else {
                let name = format_ident!("{}To{}", fv, d.variant);
                nearest_arms.push(quote! { ElemType::#dv => #h::entry::<A, routes::#name> });
            }
        }
    }
    let docs = t.types.iter().zip(&names).map(|(t, n)| format!("`{n}`: {}-byte {:?}.", t.width, t.class));
    quote! {
        /// The element types conversions are generated for (DirectML's eleven data types).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum ElemType {
            #( #[doc = #docs] #variants, )*
        }

        impl ElemType {
            /// Every element type.
            pub const ALL: [ElemType; #count] = [ #( ElemType::#variants ),* ];

            /// Bytes per element.
            pub const fn width(self) -> usize {
                match self { #( ElemType::#variants => #widths, )* }
            }

            /// The short name: `f32`, `f16`, `u8`, ….
            pub const fn name(self) -> &'static str {
                match self { #( ElemType::#variants => #names, )* }
            }

            /// Whether the type is a floating-point type (f16, f32, f64).
            pub const fn is_float(self) -> bool {
                match self { #( ElemType::#variants => #floats, )* }
            }

            /// Whether the type holds negative values.
            pub const fn is_signed(self) -> bool {
                match self { #( ElemType::#variants => #signed, )* }
            }

            /// How a cast from `from` to `to` is computed, e.g. `"f64 → f32 (round to odd) → f16"`.
            pub const fn cast_route(from: ElemType, to: ElemType) -> &'static str {
                match (from, to) { #( #descriptions, )* }
            }
        }

        /// Rust's `as` between two plain element types (every pair but those with f16, which has no Rust type).
        pub(crate) trait AsCast<D> {
            /// `self as D`.
            fn as_cast(self) -> D;
        }

        #( #as_impls )*

        /// Float → integer conversions: toward zero (`NEAREST = false`, Rust's `as`) or to nearest with ties to even,
        /// then saturating at the integer's bounds; NaN becomes 0.
        pub(crate) trait FloatToInt<D> {
            /// Converts `self`.
            fn float_to_int<const NEAREST: bool>(self) -> D;
        }

        #( #float_to_int )*

        /// One zero-sized route type per (source, destination) pair.
        pub(crate) mod routes {
            #( #routes )*
        }

        /// The conversion function of `(from, to)` compiled for level `A`: the dispatch table.
        pub(crate) fn cast_fn<A: #h::Arch>(from: ElemType, to: ElemType) -> #h::CastFn {
            match (from, to) { #( #arms, )* }
        }

        /// The f32 → integer routes rounding to nearest.
        pub(crate) mod nearest {
            #( #nearest_routes )*
        }

        /// The conversion of f32 to `to` rounding to nearest (integers: half to even, then saturating; NaN → 0),
        /// compiled for level `A`.
        #[allow(dead_code)]
        pub(crate) fn nearest_fn<A: #h::Arch>(to: ElemType) -> #h::CastFn {
            match to { #( #nearest_arms, )* }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn expand_nests(max_rank: usize) -> String {
        let input = syn::parse2(quote!(row = crate::Row; max_rank = #max_rank;)).unwrap();
        nests(crate::valid::nests(input).unwrap()).to_string()
    }

    #[test]
    fn nests_emit_one_function_per_rank_and_parse_as_items() {
        let code = expand_nests(7);
        for r in 0..=7 {
            assert!(code.contains(&format!("fn nest_{r} (")), "nest_{r} missing");
        }
        assert!(!code.contains("nest_8"));
        let file: syn::File = syn::parse_str(&code).expect("generated nests must parse");
        assert_eq!(file.items.len(), 2 + 8 + 1);
    }

    #[test]
    fn nests_have_no_division_and_one_row_call_per_rank() {
        let code = expand_nests(3);
        assert!(!code.contains(" / ") && !code.contains(" % "), "no per-element division in a nest");
        // one `rows` call in each nest_k (the innermost level is a call, not a loop).
        assert_eq!(code.matches(". rows (").count(), 4);
        assert_eq!(code.matches("loop {").count(), 1 + 2, "nest_2 has one loop, nest_3 two");
    }

    #[test]
    fn types_emit_every_pair_and_pick_routes() {
        let input = syn::parse2(quote!(
            helpers = crate::convert;
            F32(f32, float), F16(u16, half), F64(f64, float), I8(i8, signed), U8(u8, unsigned)
        ))
        .unwrap();
        let code = types(crate::valid::types(input).unwrap()).to_string();
        let file: syn::File = syn::parse_str(&code).expect("generated types must parse");
        assert!(file.items.len() >= 4);
        // 5 types: 25 routes, 16 `as` impls between the 4 plain types, 4 float → integer impls.
        assert_eq!(code.matches("impl FloatToInt <").count(), 4);
        // 25 pair routes and 2 f32 → integer routes rounding to nearest.
        assert_eq!(code.matches("impl crate :: convert :: Route for").count(), 25 + 2);
        assert!(code.contains("struct F32ToU8Nearest"));
        assert_eq!(code.matches("impl AsCast <").count(), 16);
        assert!(code.contains("\"f64 → f32 (round to odd) → f16\""));
        assert!(code.contains("\"i8 → f32 → f16\""));
        assert!(code.contains("\"f16 → f32 → u8\""));
        assert!(code.contains("\"f32 → f16\""));
        assert!(code.contains("\"u8 (copy)\""));
    }

    #[test]
    fn widths_emit_enum_and_dispatch() {
        let input = syn::parse2(quote!(1, 2, 4)).unwrap();
        let code = widths(crate::valid::widths(input).unwrap()).to_string();
        let file: syn::File = syn::parse_str(&code).expect("generated widths must parse");
        assert_eq!(file.items.len(), 3);
        assert!(code.contains("visit :: < 4 >"));
        assert!(code.contains("W2 = 2"));
    }
}
