//! `#[kernel]`: turns one Rust function into a GPU kernel for both targets.
//!
//! On `nvptx64` the function becomes an `extern "ptx-kernel"` entry with an unmangled
//! name, so the PTX exports it as CUDA C's `__global__` function would be. On the host it
//! stays an ordinary function (the emulator runs it once per lane) and a module of the
//! same name is generated beside it, holding `KERNEL`, a typed launchable: a launch names
//! the kernel once and its arguments are checked at compile time for both backends.
//!
//! Shared memory is declared in the kernel body with `shared_array![T; N]` (static) and
//! `dynamic_shared![T]` (launch-sized). The attribute lays the static arrays out one after
//! another (as the CUDA compiler does), puts the dynamic part after them, and records the
//! static size in `KERNEL`, so the host knows how much shared memory the kernel needs.
//! Because the layout is computed from the body, shared memory must be declared directly
//! in the kernel function; helpers receive the handles as arguments (like CUB's
//! `TempStorage`).

use proc_macro::TokenStream;
use proc_macro2::Span;
use quote::{format_ident, quote};
use syn::visit_mut::VisitMut;
use syn::{Expr, FnArg, ItemFn, Pat, Token, Type, parse_macro_input, parse_quote};

/// A `shared_array![T; N]` found in the body.
struct StaticShared {
    ty: Type,
    len: Expr,
}

struct SharedRewriter {
    kernel: syn::Ident,
    arrays: Vec<StaticShared>,
    errors: Vec<syn::Error>,
}

struct ArrayArgs {
    ty: Type,
    len: Expr,
}

impl syn::parse::Parse for ArrayArgs {
    fn parse(input: syn::parse::ParseStream) -> syn::Result<Self> {
        let ty: Type = input.parse()?;
        input.parse::<Token![;]>()?;
        let len: Expr = input.parse()?;
        Ok(ArrayArgs { ty, len })
    }
}

impl VisitMut for SharedRewriter {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Expr::Macro(m) = e {
            let name = m.mac.path.segments.last().map(|s| s.ident.to_string());
            let kernel = &self.kernel;
            match name.as_deref() {
                Some("shared_array") => match m.mac.parse_body::<ArrayArgs>() {
                    Ok(ArrayArgs { ty, len }) => {
                        let k = self.arrays.len();
                        *e = parse_quote! {
                            ::gpu::shared::SharedArray::<#ty, { #len }>::__at(#kernel::__SHARED_OFFSETS[#k])
                        };
                        self.arrays.push(StaticShared { ty, len });
                        return;
                    }
                    Err(err) => {
                        self.errors.push(syn::Error::new(
                            err.span(),
                            "expected `shared_array![TYPE; LENGTH]`",
                        ));
                        return;
                    }
                },
                Some("dynamic_shared") => match m.mac.parse_body::<Type>() {
                    Ok(ty) => {
                        *e = parse_quote! {
                            ::gpu::shared::DynamicShared::<#ty>::__at(#kernel::STATIC_SHARED_BYTES)
                        };
                        return;
                    }
                    Err(err) => {
                        self.errors.push(syn::Error::new(
                            err.span(),
                            "expected `dynamic_shared![TYPE]`",
                        ));
                        return;
                    }
                },
                _ => {}
            }
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }
}

/// Marks a function as a GPU kernel (CUDA's `__global__`).
///
/// ```ignore
/// use gpu::prelude::*;
///
/// #[kernel]
/// pub fn scale(x: GlobalSlice<f32>, a: f32) {
///     let i = thread::index_1d();
///     if i < x.len() {
///         x.store(i, a * x.load(i));
///     }
/// }
/// ```
///
/// The function must take plain parameters (`name: Type`), return nothing and have no
/// generics: a PTX entry has one fixed signature. Launch it through the host runtime with
/// `scale::KERNEL`.
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    if !attr.is_empty() {
        return syn::Error::new(Span::call_site(), "#[kernel] takes no arguments")
            .to_compile_error()
            .into();
    }
    let mut f = parse_macro_input!(item as ItemFn);
    match expand(&mut f) {
        Ok(ts) => ts.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

fn expand(f: &mut ItemFn) -> syn::Result<proc_macro2::TokenStream> {
    let sig = &f.sig;
    if !sig.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &sig.generics,
            "a kernel cannot be generic: a PTX entry has one fixed signature",
        ));
    }
    if sig.asyncness.is_some() || sig.constness.is_some() || sig.unsafety.is_some() {
        return Err(syn::Error::new_spanned(
            sig.fn_token,
            "a kernel is a plain `fn` (not async, const or unsafe)",
        ));
    }
    if let syn::ReturnType::Type(_, t) = &sig.output {
        return Err(syn::Error::new_spanned(
            t,
            "a kernel returns nothing: write results to device memory",
        ));
    }
    let mut names = Vec::new();
    let mut types = Vec::new();
    for arg in &sig.inputs {
        match arg {
            FnArg::Typed(pt) => match &*pt.pat {
                Pat::Ident(id) => {
                    names.push(id.ident.clone());
                    types.push((*pt.ty).clone());
                }
                other => {
                    return Err(syn::Error::new_spanned(
                        other,
                        "kernel parameters must be plain names (`x: Type`)",
                    ));
                }
            },
            FnArg::Receiver(r) => {
                return Err(syn::Error::new_spanned(r, "a kernel cannot take `self`"));
            }
        }
    }
    let name = sig.ident.clone();
    let mut rw = SharedRewriter {
        kernel: name.clone(),
        arrays: Vec::new(),
        errors: Vec::new(),
    };
    rw.visit_block_mut(&mut f.block);
    if let Some(e) = rw.errors.into_iter().next() {
        return Err(e);
    }
    let k = rw.arrays.len();
    let layout = rw.arrays.iter().enumerate().map(|(i, a)| {
        let (ty, len) = (&a.ty, &a.len);
        quote! {
            at = ::gpu::shared::align_up(at, ::core::mem::align_of::<#ty>());
            o[#i] = at;
            at += ::core::mem::size_of::<#ty>() * (#len) as usize;
        }
    });
    let layout2 = layout.clone();
    let vis = &f.vis;
    let attrs = &f.attrs;
    let block = &f.block;
    let inputs = &sig.inputs;
    let name_str = name.to_string();
    let tuple_pat = quote! { (#(#names,)*) };
    let meta_doc = format!(
        "Launch metadata of the kernel [`{name_str}`](fn@{name_str}): its shared-memory layout and `KERNEL`, \
         the typed launchable."
    );
    let _ = format_ident!("unused");
    Ok(quote! {
        #(#attrs)*
        #[cfg(target_arch = "nvptx64")]
        #[unsafe(no_mangle)]
        #vis unsafe extern "ptx-kernel" fn #name(#inputs) #block

        #(#attrs)*
        #[cfg(not(target_arch = "nvptx64"))]
        #vis fn #name(#inputs) #block

        #[doc = #meta_doc]
        #[allow(non_snake_case, unused_imports, unused_assignments, clippy::all)]
        #vis mod #name {
            use super::*;

            /// Byte offset of each `shared_array!` of the kernel, in declaration order.
            pub const __SHARED_OFFSETS: [usize; #k] = {
                let mut o = [0usize; #k];
                let mut at = 0usize;
                #(#layout)*
                let _ = at;
                o
            };

            /// Bytes of static shared memory the kernel declares (its dynamic shared
            /// memory starts here, 16-byte aligned).
            pub const STATIC_SHARED_BYTES: usize = {
                let mut o = [0usize; #k];
                let mut at = 0usize;
                #(#layout2)*
                let _ = o;
                ::gpu::shared::align_up(at, 16)
            };

            /// The typed launchable: pass it to the host runtime's `launch`.
            #[cfg(not(target_arch = "nvptx64"))]
            pub const KERNEL: ::gpu::Kernel<(#(#types,)*)> = ::gpu::Kernel {
                name: #name_str,
                static_shared_bytes: STATIC_SHARED_BYTES as u32,
                host: |#tuple_pat| super::#name(#(#names),*),
                file: file!(),
                line: line!(),
            };
        }
    })
}
