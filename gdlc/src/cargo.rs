//! Generated crates on disk, built by cargo: the one place that writes a crate's files and
//! says how cargo is run, for `gdlc build`, the build cache of `gdlc trace/bench --engine
//! compiled`, the compiled-code tests and xtask. (The files themselves come from
//! [`crate::crate_gen`], which does no I/O.)

use std::path::Path;

use crate::crate_gen::CrateFile;

/// Writes `files` under `dir`, leaving files that already hold the same contents untouched
/// (so that cargo sees nothing new). Each file is written whole under another name, then
/// renamed, so that a concurrent reader (another `gdlc`, cargo) never sees half a file.
pub fn write_files(dir: &Path, files: &[CrateFile]) -> std::io::Result<()> {
    for f in files {
        let path = dir.join(&f.path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        if std::fs::read(&path).ok().as_deref() != Some(f.contents.as_bytes()) {
            let partial = path.with_extension(format!("partial-{}", std::process::id()));
            std::fs::write(&partial, &f.contents)?;
            std::fs::rename(&partial, &path)?;
        }
    }
    Ok(())
}

/// The cargo to run: `$CARGO` (set when run under cargo), else `cargo` on the path.
pub fn program() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string())
}

/// Which packages of a manifest a build builds.
#[derive(Clone, Copy, Debug)]
pub enum Packages<'a> {
    /// The manifest's own package.
    Root,
    /// Every member of the workspace.
    Workspace,
    /// These members.
    Only(&'a [String]),
}

/// The processor a build's code is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetCpu {
    /// Rust's default for the target (portable: the binary runs on any machine of its
    /// architecture). For code built to be copied elsewhere, and for the tests.
    Generic,
    /// This machine's processor (`-C target-cpu=native`: its instruction set, e.g. `popcnt`
    /// and BMI in hardware) without AVX-512 (`-C target-feature=-avx512f`: on an AMD EPYC
    /// (znver5) its 512-bit vector code made englishDraughts 10-17% slower, while the rest of
    /// the native set made every game measured 0-25% faster). For code built and run on the
    /// same machine, as the build cache of `gdlc trace/bench/play` and the universal player
    /// do (a JIT's choice). `RUSTFLAGS` in the environment, when set, still wins (cargo's
    /// precedence over `build.rustflags`).
    Host,
}

impl TargetCpu {
    /// Cargo's arguments for this choice (none for [`TargetCpu::Generic`]).
    pub fn cargo_args(self) -> Vec<String> {
        match self {
            TargetCpu::Generic => Vec::new(),
            TargetCpu::Host => vec![
                "--config".into(),
                "build.rustflags=[\"-C\", \"target-cpu=native\", \"-C\", \"target-feature=-avx512f\"]"
                    .into(),
            ],
        }
    }
}

/// A `cargo build --release` of generated code.
#[derive(Clone, Copy, Debug)]
pub struct Build<'a> {
    /// The directory of the `Cargo.toml`.
    pub manifest_dir: &'a Path,
    /// The target directory (shared by many generated crates, so that `gdl-runtime` is built
    /// once).
    pub target_dir: &'a Path,
    pub packages: Packages<'a>,
    /// `--quiet`: no progress lines.
    pub quiet: bool,
    /// The processor the code is for.
    pub cpu: TargetCpu,
}

impl Build<'_> {
    /// The arguments of cargo (after the program).
    pub fn args(&self) -> Vec<String> {
        let mut args: Vec<String> = vec!["build".into(), "--release".into()];
        if self.quiet {
            args.push("--quiet".into());
        }
        args.extend(self.cpu.cargo_args());
        args.push("--manifest-path".into());
        args.push(self.manifest_dir.join("Cargo.toml").display().to_string());
        args.push("--target-dir".into());
        args.push(self.target_dir.display().to_string());
        match self.packages {
            Packages::Root => {}
            Packages::Workspace => args.push("--workspace".into()),
            Packages::Only(ps) => {
                for p in ps {
                    args.push("--package".into());
                    args.push(p.clone());
                }
            }
        }
        args
    }

    /// Where the binary `bin` is once built.
    pub fn binary(&self, bin: &str) -> std::path::PathBuf {
        self.target_dir
            .join("release")
            .join(format!("{bin}{}", std::env::consts::EXE_SUFFIX))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_args_name_the_manifest_target_and_packages() {
        let ps = ["a".to_string(), "b".to_string()];
        let b = Build {
            manifest_dir: Path::new("/m"),
            target_dir: Path::new("/t"),
            packages: Packages::Only(&ps),
            quiet: true,
            cpu: TargetCpu::Generic,
        };
        assert_eq!(
            b.args().join(" "),
            "build --release --quiet --manifest-path /m/Cargo.toml --target-dir /t \
             --package a --package b"
        );
        assert!(b.binary("g").starts_with("/t/release"));
    }

    #[test]
    fn a_build_for_this_machine_sets_the_target_cpu_in_cargo_s_config() {
        let b = Build {
            manifest_dir: Path::new("/m"),
            target_dir: Path::new("/t"),
            packages: Packages::Root,
            quiet: false,
            cpu: TargetCpu::Host,
        };
        assert_eq!(
            b.args().join(" "),
            "build --release --config build.rustflags=[\"-C\", \"target-cpu=native\", \"-C\", \
             \"target-feature=-avx512f\"] --manifest-path /m/Cargo.toml --target-dir /t"
        );
    }

    #[test]
    fn unchanged_files_are_not_rewritten() {
        let dir = std::env::temp_dir().join(format!("gdlc-cargo-{}", std::process::id()));
        let files = [CrateFile {
            path: "src/lib.rs".into(),
            contents: "// x\n".into(),
        }];
        write_files(&dir, &files).unwrap();
        let path = dir.join("src/lib.rs");
        let before = std::fs::metadata(&path).unwrap().modified().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        write_files(&dir, &files).unwrap();
        assert_eq!(
            std::fs::metadata(&path).unwrap().modified().unwrap(),
            before
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "// x\n");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
