//! Stage 3: code emission. Emitted code names everything by absolute path and uses mixed-site spans for its
//! locals, so it neither captures nor is captured by the caller's names.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::Ident;

use crate::valid::{Nests, Widths};

fn local(name: &str, k: usize) -> Ident {
    format_ident!("{}_{}", name, k, span = Span::mixed_site())
}

/// Level `k` of an outer nest of rank `rank` (`k < rank`). Each level keeps its own pointer pair, bumped by its
/// stride once per iteration; an inner level starts from its parent's pointers. Only the first entry into a level
/// starts at the chunk's start coordinate; later entries start at 0. The innermost level is not a loop: it hands
/// its whole run of rows to the row kernel in one `rows` call, so an out-of-line kernel costs one call per run.
fn level(k: usize, rank: usize) -> TokenStream {
    let i = local("i", k);
    let e = local("e", k);
    let is = local("is", k);
    let os = local("os", k);
    let s = local("s", k);
    let d = local("d", k);
    let left = Ident::new("left", Span::mixed_site());
    let row = Ident::new("row", Span::mixed_site());

    let enter = if k == 0 {
        quote! {}
    } else {
        let first = local("first", k);
        let ps = local("s", k - 1);
        let pd = local("d", k - 1);
        quote! {
            let mut #i = #first;
            #first = 0;
            let mut #s = #ps.wrapping_offset(#i as isize * #is);
            let mut #d = #pd.wrapping_offset(#i as isize * #os);
        }
    };

    if k + 1 == rank {
        let m = Ident::new("m", Span::mixed_site());
        return quote! {
            #enter
            let #m = if #e - #i < #left { #e - #i } else { #left };
            // SAFETY: the caller guarantees that every row of the walked range is in bounds for the row kernel;
            // these are rows i..i+m of this level.
            unsafe { #row.rows(#s, #d, #m, #is, #os) };
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
        }
    }
}

fn nest_fn(rank: usize, m: usize, row_trait: &syn::Path) -> TokenStream {
    let name = format_ident!("nest_{}", rank);
    let row = Ident::new("row", Span::mixed_site());
    let left = Ident::new("left", Span::mixed_site());
    let doc = format!(
        "Walks `count` rows of a plan with {rank} outer dimension(s), starting at coordinates `start`: explicit \
         loops over the outer dimensions but the innermost, whose runs of rows go to the row kernel in one `rows` \
         call each. Out of line: one call per chunk, and each (rank, row kernel) pair stays a function of its own \
         size for the optimizer."
    );
    let safety = "\n\n# Safety\n\n`src`/`dst` point at the coordinates (0, …, 0) of the outer dimensions; every \
                  row of the `count` rows starting at `start` (in row-major order of `extents`) must be valid for \
                  the row kernel; `start[k] < extents[k]` and `count` does not exceed the rows left.";
    if rank == 0 {
        return quote! {
            #[doc = #doc]
            #[doc = #safety]
            #[inline(never)]
            #[allow(clippy::too_many_arguments, unused_variables)]
            pub(crate) unsafe fn #name<R: #row_trait>(
                #row: &R,
                src: *const u8,
                dst: *mut u8,
                extents: &[usize; #m],
                in_strides: &[isize; #m],
                out_strides: &[isize; #m],
                start: &[usize; #m],
                count: usize,
            ) {
                if count != 0 {
                    // SAFETY: forwarded from this function's contract.
                    unsafe { #row.rows(src, dst, 1, 0, 0) };
                }
            }
        };
    }
    let loads = (0..rank).map(|k| {
        let (e, is, os) = (local("e", k), local("is", k), local("os", k));
        quote! {
            let #e = extents[#k];
            let #is = in_strides[#k];
            let #os = out_strides[#k];
        }
    });
    let firsts = (1..rank).map(|k| {
        let first = local("first", k);
        quote! { let mut #first = start[#k]; }
    });
    let (i0, s0, d0, is0, os0) = (local("i", 0), local("s", 0), local("d", 0), local("is", 0), local("os", 0));
    let outer = level(0, rank);
    quote! {
        #[doc = #doc]
        #[doc = #safety]
        #[inline(never)]
        // The innermost level's counter and pointers are declared like the loops' but never bumped.
        #[allow(clippy::too_many_arguments, unused_mut)]
        pub(crate) unsafe fn #name<R: #row_trait>(
            #row: &R,
            src: *const u8,
            dst: *mut u8,
            extents: &[usize; #m],
            in_strides: &[isize; #m],
            out_strides: &[isize; #m],
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
            #r => unsafe { #name(row, src, dst, extents, in_strides, out_strides, start, count) },
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
        pub(crate) unsafe fn nest<R: #row_trait>(
            rank: usize,
            row: &R,
            src: *const u8,
            dst: *mut u8,
            extents: &[usize; #m],
            in_strides: &[isize; #m],
            out_strides: &[isize; #m],
            start: &[usize; #m],
            count: usize,
        ) {
            match rank {
                #(#arms)*
                _ => ::core::debug_assert!(false, "outer rank {} exceeds the generated nests", rank),
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
            assert!(code.contains(&format!("fn nest_{r} <")), "nest_{r} missing");
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
    fn widths_emit_enum_and_dispatch() {
        let input = syn::parse2(quote!(1, 2, 4)).unwrap();
        let code = widths(crate::valid::widths(input).unwrap()).to_string();
        let file: syn::File = syn::parse_str(&code).expect("generated widths must parse");
        assert_eq!(file.items.len(), 3);
        assert!(code.contains("visit :: < 4 >"));
        assert!(code.contains("W2 = 2"));
    }
}
