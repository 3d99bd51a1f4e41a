//! What the tests of the inline backend's generated code share: a fixture compiled with the
//! inline backend ([`inline_rust`]) and an item of the formatted module ([`item`]). Each test
//! file uses a part of it.
#![allow(dead_code)]

use gdlc::codegen::{Backend, CodegenOptions};

/// The Rust module of the fixture `source` named `name`, with the inline backend and the
/// codegen options `adjust` leaves (chunk sizes).
pub fn inline_rust(name: &str, source: &str, adjust: impl FnOnce(&mut CodegenOptions)) -> String {
    let mut options = gdlc::CompileOptions::for_game(name);
    options.codegen.backend = Backend::Inline;
    adjust(&mut options.codegen);
    match gdlc::compile(source, &options) {
        Ok(c) => c.rust,
        Err(errors) => panic!("{name} does not compile: {errors:?}"),
    }
}

/// The text from `fn NAME` to the next line `}` (the generated module is formatted).
pub fn item<'a>(rust: &'a str, name: &str) -> Option<&'a str> {
    let at = rust.find(&format!("\nfn {name}("))?;
    let end = at + rust[at..].find("\n}\n")?;
    Some(&rust[at..end])
}
