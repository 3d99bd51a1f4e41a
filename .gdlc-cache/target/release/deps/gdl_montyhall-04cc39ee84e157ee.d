/work/wt/gdl2/.gdlc-cache/target/release/deps/gdl_montyhall-04cc39ee84e157ee.d: src/main.rs

/work/wt/gdl2/.gdlc-cache/target/release/deps/gdl_montyhall-04cc39ee84e157ee: src/main.rs

src/main.rs:
