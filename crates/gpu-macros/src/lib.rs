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
    let export = format!("__gpu_kernel_{name_str}");
    let shared_export = format!("__gpu_shared_{name_str}");
    let body = format_ident!("__gpu_body_{}", name);
    Ok(quote! {
        // The kernel's body, one safe function on every target: an unsafe operation in it
        // is an error for nvptx64 as for the emulator's sandbox, never only a warning
        // inside the `unsafe extern "ptx-kernel"` entry.
        #(#attrs)*
        #[doc(hidden)]
        #[inline(always)]
        #[allow(non_snake_case)]
        fn #body(#inputs) #block

        #(#attrs)*
        #[cfg(target_arch = "nvptx64")]
        #[unsafe(no_mangle)]
        #vis unsafe extern "ptx-kernel" fn #name(#(#names: #types),*) {
            #body(#(#names),*)
        }

        #(#attrs)*
        #[cfg(not(target_arch = "nvptx64"))]
        #vis fn #name(#(#names: #types),*) {
            #body(#(#names),*)
        }

        // In the sandbox (wasm32), each lane calls this export; it reads the arguments
        // the launch passed and runs the kernel.
        #[cfg(target_arch = "wasm32")]
        const _: () = {
            #[unsafe(export_name = #export)]
            extern "C" fn __gpu_kernel_export() {
                ::gpu::__wasm::kernel_start();
                let mut __word = 0u32;
                let mut __next = || {
                    let w = ::gpu::__wasm::arg(__word);
                    __word += 1;
                    w
                };
                let #tuple_pat = <(#(#types,)*) as ::gpu::KernelArgs>::__from_words(&mut __next);
                #name(#(#names),*)
            }

            /// The kernel's static shared memory, for the host's launch.
            #[unsafe(export_name = #shared_export)]
            extern "C" fn __gpu_shared_export() -> u32 {
                #name::STATIC_SHARED_BYTES as u32
            }
        };

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

            /// The kernel's parameter types, as the tuple a launch passes (a chapter's
            /// kernel table names a kernel's type as `Kernel<name::Args>`).
            pub type Args = (#(#types,)*);

            /// The typed launchable: pass it to the host runtime's `launch`.
            #[cfg(not(target_arch = "nvptx64"))]
            pub const KERNEL: ::gpu::Kernel<(#(#types,)*)> = ::gpu::Kernel {
                name: #name_str,
                static_shared_bytes: STATIC_SHARED_BYTES as u32,
                host: |#tuple_pat| super::#name(#(#names),*),
                file: file!(),
                line: line!(),
                module: env!("CARGO_PKG_NAME"),
            };
        }
    })
}

/// Marks a plain Rust function of a kernel crate (an exercise that is host code, such as
/// `histogram_sequential`) as callable from the emulator's sandbox.
///
/// The function is unchanged; in the WebAssembly build the attribute adds an export,
/// `__gpu_host_<name>`, that decodes the arguments the host passes, calls the function
/// and encodes its result (`gpu::host_value`). Arguments are `&[u8]`, `&[u32]`, `&[f32]` or values
/// implementing `gpu::HostValue` (`u32`, arrays of them, enums deriving it); so is the
/// result.
#[proc_macro_attribute]
pub fn host(attr: TokenStream, item: TokenStream) -> TokenStream {
    if !attr.is_empty() {
        return syn::Error::new(Span::call_site(), "#[host] takes no arguments")
            .to_compile_error()
            .into();
    }
    let f = parse_macro_input!(item as ItemFn);
    match expand_host(&f) {
        Ok(export) => quote! { #f #export }.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

fn expand_host(f: &ItemFn) -> syn::Result<proc_macro2::TokenStream> {
    let name = &f.sig.ident;
    if !f.sig.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &f.sig.generics,
            "a #[host] function cannot be generic",
        ));
    }
    let mut decode = Vec::new();
    let mut pass = Vec::new();
    for (i, arg) in f.sig.inputs.iter().enumerate() {
        let FnArg::Typed(pt) = arg else {
            return Err(syn::Error::new_spanned(
                arg,
                "a #[host] function cannot take `self`",
            ));
        };
        let var = format_ident!("__arg{i}");
        match &*pt.ty {
            Type::Reference(r) => {
                // A slice of bytes, `u32` or `f32` (a chapter's input), lent as a `Vec`.
                let elem = match &*r.elem {
                    Type::Slice(s) => {
                        let e = &s.elem;
                        let name = quote!(#e).to_string();
                        ["u8", "u32", "f32"].contains(&name.as_str()).then_some(e)
                    }
                    _ => None,
                };
                let (Some(elem), None) = (elem, r.mutability) else {
                    return Err(syn::Error::new_spanned(
                        &pt.ty,
                        "a #[host] function takes `&[u8]`, `&[u32]`, `&[f32]` or values (`u32`, ...)",
                    ));
                };
                decode.push(quote! {
                    let #var: ::std::vec::Vec<#elem> = ::gpu::host_value::HostValue::take(__input)
                        .expect("invariant: the emulator encodes the arguments");
                });
                pass.push(quote! { &#var[..] });
            }
            ty => {
                decode.push(quote! {
                    let #var: #ty = ::gpu::host_value::HostValue::take(__input)
                        .expect("invariant: the emulator encodes the arguments");
                });
                pass.push(quote! { #var });
            }
        }
    }
    let export = format!("__gpu_host_{name}");
    Ok(quote! {
        #[cfg(target_arch = "wasm32")]
        const _: () = {
            #[unsafe(export_name = #export)]
            extern "C" fn __gpu_host_export(ptr: *mut u8, len: usize) -> u64 {
                ::gpu::__wasm::host_call(ptr, len, |__input| {
                    #(#decode)*
                    let __result = #name(#(#pass),*);
                    let mut __out = ::std::vec::Vec::new();
                    ::gpu::host_value::HostValue::put(&__result, &mut __out);
                    __out
                })
            }
        };
    })
}

/// Derives `gpu::HostValue` for an enum whose variants have no fields (a host function's
/// answer such as chapter 9's `Strategy`): the variant's index, as a `u32`.
#[proc_macro_derive(HostValue)]
pub fn derive_host_value(item: TokenStream) -> TokenStream {
    let e = parse_macro_input!(item as syn::DeriveInput);
    let name = &e.ident;
    let syn::Data::Enum(data) = &e.data else {
        return syn::Error::new_spanned(name, "HostValue derives only for enums")
            .to_compile_error()
            .into();
    };
    let mut put = Vec::new();
    let mut take = Vec::new();
    for (i, v) in data.variants.iter().enumerate() {
        if !matches!(v.fields, syn::Fields::Unit) {
            return syn::Error::new_spanned(
                v,
                "HostValue derives only for variants without fields",
            )
            .to_compile_error()
            .into();
        }
        let vn = &v.ident;
        let i = i as u32;
        put.push(quote! { #name::#vn => #i });
        take.push(quote! { #i => #name::#vn });
    }
    quote! {
        #[cfg(not(target_arch = "nvptx64"))]
        impl ::gpu::host_value::HostValue for #name {
            fn put(&self, out: &mut ::std::vec::Vec<u8>) {
                let i: u32 = match self { #(#put,)* };
                ::gpu::host_value::HostValue::put(&i, out)
            }
            fn take(input: &mut &[u8]) -> ::core::option::Option<Self> {
                let i: u32 = ::gpu::host_value::HostValue::take(input)?;
                ::core::option::Option::Some(match i { #(#take,)* _ => return ::core::option::Option::None })
            }
        }
    }
    .into()
}

#[cfg(test)]
mod tests {
    use super::expand;

    /// The nvptx64 entry is `unsafe extern "ptx-kernel"`; none of the kernel's own tokens
    /// may sit in it (an unsafe operation there would be only a warning in edition 2024):
    /// its body is one call of the safe body function, which holds them on every target.
    #[test]
    fn the_ptx_entry_holds_nothing_but_a_call_of_the_safe_body() {
        let mut f: syn::ItemFn = syn::parse_quote! {
            pub fn peek(addr: u64, out: GlobalSlice<u32>) {
                out.store(0, *(addr as *const u32));
            }
        };
        let file: syn::File = syn::parse2(expand(&mut f).expect("expands")).expect("items");
        let fns: Vec<&syn::ItemFn> = file
            .items
            .iter()
            .filter_map(|i| match i {
                syn::Item::Fn(f) => Some(f),
                _ => None,
            })
            .collect();
        let entry = fns
            .iter()
            .find(|f| f.sig.abi.is_some())
            .expect("the ptx-kernel entry");
        assert!(entry.sig.unsafety.is_some());
        let [syn::Stmt::Expr(syn::Expr::Call(call), None)] = entry.block.stmts.as_slice() else {
            panic!("the entry's body is one call: {}", quote::quote!(#entry));
        };
        assert_eq!(
            quote::quote!(#call).to_string(),
            "__gpu_body_peek (addr , out)"
        );
        let body = fns
            .iter()
            .find(|f| f.sig.ident == "__gpu_body_peek")
            .expect("the body function");
        assert!(body.sig.unsafety.is_none() && body.sig.abi.is_none());
        assert!(quote::quote!(#body).to_string().contains("as * const u32"));
    }
}
