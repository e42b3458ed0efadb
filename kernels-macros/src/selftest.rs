//! `#[selftests]`: a module's `#[test]` functions made callable from outside a test build, and listed.

use proc_macro2::TokenStream;
use quote::quote;
use syn::spanned::Spanned;
use syn::{Item, ItemMod};

/// The module with its `#[test]` attributes removed, those functions and the module `pub(crate)`, and
/// `pub(crate) fn tests() -> Vec<(&'static str, fn())>` appended: each test's path and function, under the test's
/// own `#[cfg]`s.
pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    if !attr.is_empty() {
        return Err(syn::Error::new(attr.span(), "`selftests` takes no arguments"));
    }
    let mut module: ItemMod = syn::parse2(item)?;
    let Some((_, items)) = module.content.as_mut() else {
        return Err(syn::Error::new(module.span(), "`selftests` needs an inline module (`mod tests { … }`)"));
    };
    let mut entries = Vec::new();
    for item in items.iter_mut() {
        let Item::Fn(f) = item else { continue };
        let before = f.attrs.len();
        f.attrs.retain(|a| !a.path().is_ident("test"));
        if f.attrs.len() == before {
            continue;
        }
        let sig = &f.sig;
        if !sig.inputs.is_empty() || !matches!(sig.output, syn::ReturnType::Default) || !sig.generics.params.is_empty()
        {
            return Err(syn::Error::new(sig.span(), "a self-test takes no arguments and returns nothing"));
        }
        f.vis = syn::parse_quote!(pub(crate));
        let name = &sig.ident;
        let cfgs = f.attrs.iter().filter(|a| a.path().is_ident("cfg"));
        entries
            .push(quote! { #(#cfgs)* list.push((concat!(module_path!(), "::", stringify!(#name)), #name as fn())); });
    }
    if entries.is_empty() {
        return Err(syn::Error::new(module.ident.span(), "`selftests` found no `#[test]` function in this module"));
    }
    items.push(syn::parse_quote! {
        /// This module's tests: each one's path and function (run by the crate's `tests/unit.rs`).
        pub(crate) fn tests() -> ::std::vec::Vec<(&'static str, fn())> {
            let mut list: ::std::vec::Vec<(&'static str, fn())> = ::std::vec::Vec::new();
            #(#entries)*
            list
        }
    });
    module.vis = syn::parse_quote!(pub(crate));
    Ok(quote! { #module })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_the_tests_under_their_cfgs_and_opens_them() {
        let out = expand(
            quote!(),
            quote! {
                mod tests {
                    fn helper() {}
                    #[test]
                    fn a() { helper() }
                    #[cfg(unix)]
                    #[test]
                    fn b() {}
                }
            },
        )
        .unwrap()
        .to_string();
        assert!(out.starts_with("pub (crate) mod tests"), "{out}");
        assert!(!out.contains("# [test]"), "{out}");
        assert!(out.contains("pub (crate) fn a ()") && out.contains("pub (crate) fn b ()"), "{out}");
        assert!(out.contains("fn helper ()") && !out.contains("pub (crate) fn helper"), "{out}");
        assert!(out.contains("# [cfg (unix)] list . push"), "{out}");
        assert_eq!(out.matches("list . push").count(), 2, "{out}");
    }

    #[test]
    fn refuses_what_it_cannot_list() {
        for (item, message) in [
            (
                quote!(
                    mod tests;
                ),
                "inline module",
            ),
            (
                quote!(
                    mod tests {
                        fn a() {}
                    }
                ),
                "no `#[test]` function",
            ),
            (
                quote!(
                    mod tests {
                        #[test]
                        fn a(x: u8) {}
                    }
                ),
                "no arguments",
            ),
            (
                quote!(
                    mod tests {
                        #[test]
                        fn a() -> Result<(), ()> {
                            Ok(())
                        }
                    }
                ),
                "no arguments",
            ),
        ] {
            let e = expand(quote!(), item).unwrap_err().to_string();
            assert!(e.contains(message), "{e}");
        }
        assert!(
            expand(
                quote!(x),
                quote!(
                    mod tests {
                        #[test]
                        fn a() {}
                    }
                )
            )
            .is_err()
        );
    }
}
