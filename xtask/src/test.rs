//! `cargo xtask test`: every test of the project, in order (what
//! scripts/test-all.sh, the README's test command, and CI run).

use crate::firmware;
use crate::tasks::{self, FIRMWARE_TARGETS};
use crate::util::{cargo, heading, run, secs, timed, Result};

struct Step {
    name: &'static str,
    what: &'static str,
    run: fn() -> Result,
}

const STEPS: [Step; 13] = [
    Step {
        name: "deps",
        what: "toolchain and packages: rustup components (rustfmt, clippy) and targets, \
               Debian packages (scripts/install-firmware-deps.sh --riscv --plugin)",
        run: tasks::deps,
    },
    Step {
        name: "lint",
        what: "format and lints: cargo fmt --check, cargo clippy --all-targets -D warnings, \
               kpca-staticlib on its own and kpca with and without std; cargo doc --workspace with \
               RUSTDOCFLAGS=-D warnings",
        run: lint,
    },
    Step {
        name: "package",
        what:
            "cargo package of the publishable crates: only sources and docs, built from the package",
        run: crate::package::check,
    },
    Step {
        name: "no-std",
        what: "the no_std core, the C ABI and libkpca.a build for every firmware target",
        run: no_std,
    },
    Step {
        name: "unit",
        what: "cargo build --workspace, then cargo test: unit, integration, C, doc tests, kpca --features std (end to end), kpca-core and kpca-capi --features size (the size-first build), the header against the pinned \
               cbindgen, the C firmware on QEMU (a missing tool fails)",
        run: unit,
    },
    Step {
        name: "examples",
        what: "examples/: the no_std library for thumbv7em-none-eabihf, the host example run, \
               kpca added to fresh crates (scripts/fresh-crate.sh)",
        run: tasks::examples,
    },
    Step {
        name: "python",
        what: "the Python package: pip install of python/requirements-test.txt and of ./python \
               (maturin builds crates/kpca-py), its clippy, then pytest python/tests",
        run: python,
    },
    Step {
        name: "firmware",
        what: "firmware on the emulated Cortex-M4F, link checks, downstream size, no-panic check, every loop variant bit for bit, quick cost, \
               the other emulated MCUs",
        run: || firmware::test(&[("c-firmware", "tests/firmware_qemu.rs ran in the unit step")]),
    },
    Step {
        name: "stream",
        what: "a streamed Nystrom fit (kpca fit --stream) of a 366 MiB file within 128 MiB of \
               resident memory (scripts/stream-fit.py --check-rss)",
        run: stream,
    },
    Step {
        name: "clib",
        what: "the C library: cargo xtask release (every target, only kpca_* exported), then \
               CMake find_package / add_subdirectory / pkg-config on the host, the firmware \
               with CMake on QEMU, links for every target (scripts/clib-test.sh)",
        run: || crate::release::clib_test(&[]),
    },
    Step {
        name: "sanitize",
        what: "hostile input: C status tests under ASan and UBSan",
        run: tasks::sanitize,
    },
    Step {
        name: "miri",
        what: "hostile input: Miri over the core's and the C ABI's tests",
        run: tasks::miri,
    },
    Step {
        name: "fuzz",
        what: "hostile input: fuzz smoke run of every cargo-fuzz target",
        run: || tasks::fuzz(&[]),
    },
];

fn lint() -> Result {
    run(cargo().args(["fmt", "--all", "--", "--check"]))?;
    // Every crate of the workspace, then the static library on its own (it must
    // not be built together with `std`, which brings its own panic handler).
    run(cargo().args(["clippy", "--all-targets", "--", "-D", "warnings"]))?;
    run(cargo().args(["clippy", "-p", "kpca-staticlib", "--", "-D", "warnings"]))?;
    // The crate a user adds, with and without its host side.
    for features in [&[][..], &["--features", "std"][..]] {
        run(cargo()
            .args(["clippy", "-p", "kpca", "--all-targets"])
            .args(features)
            .args(["--", "-D", "warnings"]))?;
    }
    // No function of the shipped code (tests aside) over the 100 lines of
    // clippy.toml (clippy counts code lines, not comments or blank lines).
    let long = ["--", "-D", "warnings", "-D", "clippy::too_many_lines"];
    run(cargo()
        .args(["clippy", "--lib", "--bins", "--examples"])
        .args(long))?;
    run(cargo().args(["clippy", "-p", "kpca-staticlib"]).args(long))?;
    // The API docs build without a warning (broken intra-doc links among them).
    run(cargo()
        .args(["doc", "--workspace", "--no-deps"])
        .env("RUSTDOCFLAGS", "-D warnings"))
}

fn python() -> Result {
    let pip = |args: &[&str]| {
        let mut c = std::process::Command::new("python3");
        c.args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
        ])
        .args(args);
        c
    };
    run(&mut pip(&["-r", "python/requirements-test.txt"]))?;
    run(cargo().args([
        "clippy",
        "-p",
        "kpca-py",
        "--all-targets",
        "--",
        "-D",
        "warnings",
    ]))?;
    run(cargo().args([
        "clippy",
        "-p",
        "kpca-py",
        "--lib",
        "--",
        "-D",
        "warnings",
        "-D",
        "clippy::too_many_lines",
    ]))?;
    // The package as a user installs it (pip builds the wheel with maturin),
    // reinstalled so the tests import this checkout's build.
    run(&mut pip(&["--force-reinstall", "--no-deps", "./python"]))?;
    // The emulator-against-QEMU test needs the firmware tools of the deps step.
    run(std::process::Command::new("python3")
        .args(["-m", "pytest", "-q", "python/tests"])
        .env("KPCA_REQUIRE_FIRMWARE_TOOLS", "1"))
}

/// The streamed fit holds no data: 3 x 10^6 rows of 16 f64 (366 MiB) fitted
/// within 128 MiB (the script builds the release kpca binary, which the
/// firmware step already built).
fn stream() -> Result {
    run(std::process::Command::new("python3")
        .arg("scripts/stream-fit.py")
        .args([
            "--rows",
            "3000000",
            "--landmarks",
            "200",
            "--components",
            "4",
        ])
        .args(["--check-rss", "128"]))
}

fn no_std() -> Result {
    for t in FIRMWARE_TARGETS {
        run(cargo().args([
            "build",
            "-p",
            "kpca",
            "-p",
            "kpca-core",
            "-p",
            "kpca-capi",
            "--target",
            t,
        ]))?;
        run(cargo().args(["build", "-p", "kpca-staticlib", "--release", "--target", t]))?;
    }
    Ok(())
}

fn unit() -> Result {
    // Tests that need arm-none-eabi-gcc or QEMU skip (and say so) under a plain
    // `cargo test`; here the tools were installed by the deps step and a
    // missing one is a failure.
    // The whole workspace builds as one graph (the no_std static library
    // beside the host crates, the Python extension included).
    run(cargo().args(["build", "--workspace"]))?;
    run(cargo().arg("test").env("KPCA_REQUIRE_FIRMWARE_TOOLS", "1"))?;
    // The crate a user adds, with its host side: the end-to-end tests across
    // the parts need `std` (required-features), named here so that they never
    // depend on another member turning the feature on.
    run(cargo().args(["test", "-p", "kpca", "--features", "std"]))?;
    // The size-first build (feature `size`): the core's and the C ABI's
    // tests through its loop.
    run(cargo().args([
        "test",
        "-p",
        "kpca-core",
        "-p",
        "kpca-capi",
        "--features",
        "size",
    ]))
}

pub fn run_steps(args: &[String]) -> Result {
    let mut only = Vec::new();
    let mut skip = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--list" => {
                for s in &STEPS {
                    println!("{:<9} {}", s.name, s.what);
                }
                return Ok(());
            }
            "--skip" => skip.push(step_named(it.next().ok_or("--skip STEP")?)?),
            name => only.push(step_named(name)?),
        }
    }
    let mut outcomes: Vec<(&Step, Outcome)> = Vec::new();
    let mut failure = None;
    for step in &STEPS {
        let selected = only.is_empty() || only.contains(&step.name);
        if !selected {
            continue;
        }
        if skip.contains(&step.name) || failure.is_some() {
            outcomes.push((step, Outcome::NotRun));
            continue;
        }
        heading(0, &format!("{}: {}", step.name, step.what));
        let (result, took) = timed(step.run);
        match result {
            Ok(()) => outcomes.push((step, Outcome::Passed(took))),
            Err(e) => {
                outcomes.push((step, Outcome::Failed(took)));
                failure = Some(format!("step {} failed: {e}", step.name));
            }
        }
    }
    heading(0, "summary");
    let (mut passed, mut failed, mut not_run) = (0, 0, 0);
    for (step, outcome) in &outcomes {
        let text = match outcome {
            Outcome::Passed(t) => {
                passed += 1;
                format!("passed  {}", secs(*t))
            }
            Outcome::Failed(t) => {
                failed += 1;
                format!("FAILED  {}", secs(*t))
            }
            Outcome::NotRun => {
                not_run += 1;
                if failure.is_some() && !skip.contains(&step.name) {
                    "not run (an earlier step failed)".to_string()
                } else {
                    "SKIPPED (--skip)".to_string()
                }
            }
        };
        println!("  {:<9} {text}", step.name);
    }
    if only.is_empty() && skip.is_empty() {
        println!("(every step of the test command)");
    } else {
        let all: Vec<&str> = STEPS.iter().map(|s| s.name).collect();
        println!(
            "(a selection of the steps; the whole test command is: {})",
            all.join(" ")
        );
    }
    if not_run > 0 {
        println!("test: {passed} passed, {failed} failed, {not_run} skipped");
    } else {
        println!("test: {passed} passed, {failed} failed");
    }
    match failure {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

enum Outcome {
    Passed(std::time::Duration),
    Failed(std::time::Duration),
    NotRun,
}

fn step_named(name: &str) -> Result<&'static str> {
    STEPS
        .iter()
        .find(|s| s.name == name)
        .map(|s| s.name)
        .ok_or_else(|| {
            let all: Vec<&str> = STEPS.iter().map(|s| s.name).collect();
            format!("unknown test step {name:?}; steps: {}", all.join(" "))
        })
}
