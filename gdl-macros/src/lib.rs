//! The `gdl!` procedural macro: a GDL game description compiled into Rust at compile time.
//!
//! A thin layer over the `gdlc` compiler library: the macro and `gdlc emit` produce the same
//! code. The expansion is the generated module's items (the game struct implementing
//! `gdl_runtime::Game`, its `State`, the name tables), so the calling crate depends on
//! `gdl-runtime`, and on `gdl-propnet` when the compiler runs the game on a propositional
//! network (which large games get), or on `gdl-interp` when the description is too large to
//! ground and the game embeds the reference interpreter (the build then names `gdl_propnet` or
//! `gdl_interp`); put the macro in a module of its own to keep the names apart:
//!
//! ```ignore
//! mod tic_tac_toe {
//!     gdl_macros::gdl!(name = TicTacToe, file = "examples/ticTacToe.kif");
//! }
//! use gdl_runtime::Game;
//! let game = tic_tac_toe::TicTacToe;
//! let state = game.initial_state();
//! ```
//!
//! Arguments, comma-separated:
//! - `name = Ident`: the name of the game struct;
//! - `file = "path.kif"`: the description, relative to the calling crate's `Cargo.toml`; or
//! - `source = "..."`: the description itself (KIF).
//!
//! A description with errors is a compile error that lists every diagnostic with its
//! line, column and source snippet.

use proc_macro::TokenStream;
use proc_macro2::Span;
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::{Ident, LitStr, Token};

/// Where the description comes from.
enum Origin {
    File(LitStr),
    Source(LitStr),
}

struct Input {
    name: Ident,
    origin: Origin,
}

impl Parse for Input {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let mut name = None;
        let mut origin = None;
        while !input.is_empty() {
            let key: Ident = input.parse()?;
            input.parse::<Token![=]>()?;
            match key.to_string().as_str() {
                "name" => name = Some(input.parse::<Ident>()?),
                "file" => origin = Some(Origin::File(input.parse()?)),
                "source" => origin = Some(Origin::Source(input.parse()?)),
                other => {
                    return Err(syn::Error::new(
                        key.span(),
                        format!("unknown argument `{other}`: expected `name`, `file` or `source`"),
                    ));
                }
            }
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        let name = name.ok_or_else(|| input.error("missing `name = GameName`"))?;
        let origin = origin
            .ok_or_else(|| input.error("missing `file = \"game.kif\"` or `source = \"...\"`"))?;
        Ok(Input { name, origin })
    }
}

/// Compiles a GDL description into Rust items; see the crate documentation.
#[proc_macro]
pub fn gdl(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as Input);
    match expand(&input) {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

fn expand(input: &Input) -> syn::Result<proc_macro2::TokenStream> {
    let (text, file_name, tracked, span) = match &input.origin {
        Origin::Source(lit) => (lit.value(), "<gdl! source>".to_string(), None, lit.span()),
        Origin::File(lit) => {
            let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
            let path = std::path::Path::new(&dir).join(lit.value());
            let bytes = std::fs::read(&path).map_err(|e| {
                syn::Error::new(lit.span(), format!("cannot read {}: {e}", path.display()))
            })?;
            let text = String::from_utf8_lossy(&bytes).into_owned();
            (
                text,
                lit.value(),
                Some(path.display().to_string()),
                lit.span(),
            )
        }
    };
    let mut options = gdlc::pipeline::CompileOptions::for_game(&input.name.to_string());
    options.codegen.type_name = input.name.to_string();
    options.codegen.source_name = file_name.clone();
    // A description too large to ground embeds the interpreter (`for_game`'s choice): the
    // calling crate then depends on `gdl-interp`, never on the compiler.
    let source = gdlc::Source::new(&file_name, &text);
    let compiled = gdlc::compile(source, &options).map_err(|diags| {
        let file = gdlc::diag::SourceFile {
            name: &file_name,
            text: &text,
        };
        let rendered: String = diags
            .iter()
            .map(|d| gdlc::diag::render_plain(file, d))
            .collect();
        let errors = diags.iter().filter(|d| d.is_error()).count();
        syn::Error::new(span, format!("{file_name}: {errors} error(s)\n{rendered}"))
    })?;
    let items: proc_macro2::TokenStream = compiled.rust.parse().map_err(|e| {
        syn::Error::new(
            Span::call_site(),
            format!("gdlc produced invalid Rust: {e}"),
        )
    })?;
    // Rebuild when the description changes.
    let track = tracked.map(|p| quote! { const _: &[u8] = include_bytes!(#p); });
    Ok(quote! { #track #items })
}
