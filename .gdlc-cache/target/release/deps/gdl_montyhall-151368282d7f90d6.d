/work/wt/gdl2/.gdlc-cache/target/release/deps/gdl_montyhall-151368282d7f90d6.d: src/lib.rs

/work/wt/gdl2/.gdlc-cache/target/release/deps/libgdl_montyhall-151368282d7f90d6.rlib: src/lib.rs

/work/wt/gdl2/.gdlc-cache/target/release/deps/libgdl_montyhall-151368282d7f90d6.rmeta: src/lib.rs

src/lib.rs:
