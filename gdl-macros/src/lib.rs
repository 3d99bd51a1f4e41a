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
//! line, column and source snippet. A game that needs `gdl-propnet` or `gdl-interp` in a crate
//! built without it is a compile error naming the dependency to add.

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
    // A game whose crate lacks the engine it runs on: one error naming the dependency to add,
    // before rustc's own about the unresolved paths.
    let missing = missing_dependencies(&compiled.rust, linked_crates(std::env::args()).as_deref())
        .into_iter()
        .map(|m| syn::Error::new(span, m).to_compile_error());
    Ok(quote! { #(#missing)* #track #items })
}

/// The crates a generated module names beyond `gdl-runtime`: (crate name in code, package,
/// what the game runs on), each when the module needs it.
fn needed_crates(rust: &str) -> Vec<(&'static str, &'static str, &'static str)> {
    let needs = gdlc::crate_gen::Needs::of([rust]);
    let mut out = Vec::new();
    if needs.propnet {
        out.push((
            "gdl_propnet",
            "gdl-propnet",
            "the propositional network engine",
        ));
    }
    if needs.interpreter {
        out.push((
            "gdl_interp",
            "gdl-interp",
            "the reference interpreter (the description is too large to ground)",
        ));
    }
    out
}

/// One message per crate the module `rust` needs that `linked` (the crates the calling crate
/// links) lacks; none when `linked` is unknown.
fn missing_dependencies(rust: &str, linked: Option<&[String]>) -> Vec<String> {
    let Some(linked) = linked else {
        return Vec::new();
    };
    needed_crates(rust)
        .into_iter()
        .filter(|(name, ..)| !linked.iter().any(|l| l == name))
        .map(|(_, package, engine)| {
            format!(
                "this game runs on {engine}: add `{package}` to the [dependencies] of this \
                 crate's Cargo.toml (beside `gdl-runtime`, the same version)"
            )
        })
        .collect()
}

/// The crates the calling crate links, from rustc's command line (`--extern NAME=PATH`): a
/// procedural macro runs inside rustc, whose arguments `args` are. `None` when there is no
/// `--extern` at all (the macro expanded elsewhere, e.g. by an editor's macro server): then
/// nothing is known, and nothing is reported.
fn linked_crates(args: impl IntoIterator<Item = String>) -> Option<Vec<String>> {
    let mut names = Vec::new();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let spec = match arg.strip_prefix("--extern") {
            Some("") => args.next(),
            Some(rest) => rest.strip_prefix('=').map(str::to_string),
            None => None,
        };
        if let Some(spec) = spec {
            // `[OPTIONS:]NAME[=PATH]`
            let name = spec.split('=').next().unwrap_or_default();
            names.push(name.rsplit(':').next().unwrap_or_default().to_string());
        }
    }
    (!names.is_empty()).then_some(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_linked_crates_are_read_from_rustc_arguments() {
        let rustc = args(&[
            "rustc",
            "--crate-name",
            "game",
            "--extern",
            "gdl_macros=/t/libgdl_macros.so",
            "--extern=gdl_runtime=/t/libgdl_runtime.rlib",
            "--extern",
            "noprelude:alloc",
        ]);
        assert_eq!(
            linked_crates(rustc),
            Some(args(&["gdl_macros", "gdl_runtime", "alloc"]))
        );
        // Not inside rustc: nothing known.
        assert_eq!(linked_crates(args(&["rust-analyzer-proc-macro-srv"])), None);
    }

    #[test]
    fn a_missing_engine_crate_is_named() {
        let propnet = "use gdl_propnet::{Engine, Net};";
        let linked = args(&["gdl_macros", "gdl_runtime"]);
        let m = missing_dependencies(propnet, Some(&linked));
        assert_eq!(m.len(), 1, "{m:?}");
        assert!(m[0].contains("add `gdl-propnet`"), "{m:?}");
        let with = args(&["gdl_macros", "gdl_runtime", "gdl_propnet"]);
        assert!(missing_dependencies(propnet, Some(&with)).is_empty());
        assert!(missing_dependencies(propnet, None).is_empty());
        let embedded = "gdl_interp::embedded_game!(A, \"a.kif\", false, \"\");";
        let m = missing_dependencies(embedded, Some(&linked));
        assert!(m.len() == 1 && m[0].contains("add `gdl-interp`"), "{m:?}");
        assert!(missing_dependencies("pub struct Inline;", Some(&linked)).is_empty());
    }
}
