/work/wt/gdl2/.gdlc-cache/target/release/deps/gdl_runtime-f8c01d8f24a75738.d: /work/wt/gdl2/gdl-runtime/src/lib.rs /work/wt/gdl2/gdl-runtime/src/bench.rs /work/wt/gdl2/gdl-runtime/src/cli.rs /work/wt/gdl2/gdl-runtime/src/compare.rs /work/wt/gdl2/gdl-runtime/src/game.rs /work/wt/gdl2/gdl-runtime/src/propnet/mod.rs /work/wt/gdl2/gdl-runtime/src/propnet/join.rs /work/wt/gdl2/gdl-runtime/src/propnet/text.rs /work/wt/gdl2/gdl-runtime/src/rng.rs /work/wt/gdl2/gdl-runtime/src/sexpr.rs /work/wt/gdl2/gdl-runtime/src/text.rs /work/wt/gdl2/gdl-runtime/src/trace.rs

/work/wt/gdl2/.gdlc-cache/target/release/deps/libgdl_runtime-f8c01d8f24a75738.rlib: /work/wt/gdl2/gdl-runtime/src/lib.rs /work/wt/gdl2/gdl-runtime/src/bench.rs /work/wt/gdl2/gdl-runtime/src/cli.rs /work/wt/gdl2/gdl-runtime/src/compare.rs /work/wt/gdl2/gdl-runtime/src/game.rs /work/wt/gdl2/gdl-runtime/src/propnet/mod.rs /work/wt/gdl2/gdl-runtime/src/propnet/join.rs /work/wt/gdl2/gdl-runtime/src/propnet/text.rs /work/wt/gdl2/gdl-runtime/src/rng.rs /work/wt/gdl2/gdl-runtime/src/sexpr.rs /work/wt/gdl2/gdl-runtime/src/text.rs /work/wt/gdl2/gdl-runtime/src/trace.rs

/work/wt/gdl2/.gdlc-cache/target/release/deps/libgdl_runtime-f8c01d8f24a75738.rmeta: /work/wt/gdl2/gdl-runtime/src/lib.rs /work/wt/gdl2/gdl-runtime/src/bench.rs /work/wt/gdl2/gdl-runtime/src/cli.rs /work/wt/gdl2/gdl-runtime/src/compare.rs /work/wt/gdl2/gdl-runtime/src/game.rs /work/wt/gdl2/gdl-runtime/src/propnet/mod.rs /work/wt/gdl2/gdl-runtime/src/propnet/join.rs /work/wt/gdl2/gdl-runtime/src/propnet/text.rs /work/wt/gdl2/gdl-runtime/src/rng.rs /work/wt/gdl2/gdl-runtime/src/sexpr.rs /work/wt/gdl2/gdl-runtime/src/text.rs /work/wt/gdl2/gdl-runtime/src/trace.rs

/work/wt/gdl2/gdl-runtime/src/lib.rs:
/work/wt/gdl2/gdl-runtime/src/bench.rs:
/work/wt/gdl2/gdl-runtime/src/cli.rs:
/work/wt/gdl2/gdl-runtime/src/compare.rs:
/work/wt/gdl2/gdl-runtime/src/game.rs:
/work/wt/gdl2/gdl-runtime/src/propnet/mod.rs:
/work/wt/gdl2/gdl-runtime/src/propnet/join.rs:
/work/wt/gdl2/gdl-runtime/src/propnet/text.rs:
/work/wt/gdl2/gdl-runtime/src/rng.rs:
/work/wt/gdl2/gdl-runtime/src/sexpr.rs:
/work/wt/gdl2/gdl-runtime/src/text.rs:
/work/wt/gdl2/gdl-runtime/src/trace.rs:
