//! The kpca front door: `cargo xtask <task>` (alias in .cargo/config.toml).
//!
//! Plain std Rust. Which steps run, and in what order, is decided here; the
//! work that is natural in shell (apt, QEMU, gcc link lines) stays in
//! `scripts/`, each script a leaf that this program calls (scripts/README.md).
//! Every command runs from the repository root, whatever the directory
//! `cargo xtask` was started from; paths given as arguments are relative to
//! that directory.

mod firmware;
mod gen_model;
mod package;
mod release;
mod tasks;
mod test;
mod util;

use util::Result;

const HELP: &str = "\
cargo xtask <task> [arguments]      (from anywhere in the repository)

Tests
  test [STEP...] [--skip STEP]...   everything the README's test command (scripts/test-all.sh)
                                    and CI run, in order; with STEPs only those. Steps:
                                    deps lint no-std unit examples firmware clib sanitize miri fuzz
                                    (`cargo xtask test --list` says what each runs)
  examples                          build examples/ (the no_std library for thumbv7em-none-eabihf,
                                    the host example) and run the host example
  sanitize                          C status tests under ASan + UBSan (scripts/c-sanitize.sh)
  miri                              Miri over the core's and the C ABI's tests (scripts/miri.sh)
  fuzz [SECONDS]                    fuzz smoke run, SECONDS per target, default 40 (scripts/fuzz-smoke.sh)

Firmware (install what they need with `deps` first when a tool is missing)
  firmware build [TARGET] [--features F]
                                    libkpca.a for TARGET (default thumbv7em-none-eabihf; also
                                    thumbv6m-none-eabi, thumbv7m-none-eabi, thumbv7em-none-eabi,
                                    thumbv8m.main-none-eabihf, riscv32imac-unknown-none-elf, host),
                                    only the C API exported -> build/firmware/TARGET/libkpca.a
  firmware run MODEL.kpca VECTORS.csv OUT_DIR
                                    run a model through the C firmware on the emulated Cortex-M4F
                                    (QEMU mps2-an386) -> OUT_DIR/firmware_scores.csv
  firmware test                     every firmware check: harness, c-firmware, rust, link-check,
                                    downstream, no-panic, cost --quick, targets (each also a task of
                                    its own:)
  firmware harness                  bare-metal harness self-test (make -C c-examples/firmware check)
  firmware c-firmware               C firmware vs the host's f64 fit (cargo test --test firmware_qemu)
  firmware rust [KERNEL M D K]      the Rust no_std firmware firmware/rust-m4f under QEMU (rbf 32 8 4)
  firmware link-check               link libkpca.a into C firmware for Cortex-M0+ and RV32IMAC
  firmware downstream               the library's code size as a crate outside the repository gets
                                    it (scripts/downstream-size.sh)
  firmware no-panic                 no panic machinery reachable from the C API
  firmware cost [--quick]           instructions, stack and flash on the emulated M4F
                                    -> build/firmware-cost.md (docs/COST.md's tables)
  firmware targets                  the same on the emulated Cortex-M0, M4F, M33, M7 and RV32IMAC
                                    (scripts/firmware-targets.sh) -> build/firmware-targets.md

C library
  release [OUT_DIR]                 include/kpca.h, lib/<target>/libkpca.a for every target (thumbv6m,
                                    thumbv7m, thumbv7em soft and hard float, thumbv8m.main hard float,
                                    riscv32imac, the host; only kpca_* exported, checked), a CMake
                                    package (lib/cmake/kpca) and kpca.pc, into OUT_DIR (default
                                    $CARGO_TARGET_DIR/kpca-release); docs/C-LIBRARY.md
  clib-test [RELEASE_DIR]           the C library tests (scripts/clib-test.sh): a release (made
                                    first when RELEASE_DIR is not given) through CMake find_package,
                                    add_subdirectory and pkg-config, the M4F firmware on QEMU, links
                                    for every target and float ABI

Generated files
  header [--check]                  regenerate include/kpca.h with the pinned cbindgen
                                    (scripts/gen-header.sh); --check: fail if it is stale
  gen-model bench KERNEL M D K OUT_DIR
  gen-model c-tests OUT_DIR
  gen-model rust-fw KERNEL M D K OUT_DIR
  gen-model clib KERNEL M D K OUT_DIR
                                    synthetic test models with the host's results, for the
                                    firmware cost, link check, C status tests, Rust firmware
  fixtures                          regenerate testdata/fixtures/*.json with scikit-learn
                                    (scripts/make_fixtures.py in a venv with the pinned versions)

Other
  demo                              the README's main job (scripts/demo.sh)
  bench-fit                         fit benchmark against scikit-learn and nystrompca (scripts/bench-fit.sh)
  deps                              what the tests need: rustup components and targets, Debian
                                    packages (arm-none-eabi-gcc, QEMU, RISC-V gcc, plugin build);
                                    needs root or sudo for apt
  help                              this text

Outputs go to CARGO_TARGET_DIR (default target/) and build/.";

fn main() {
    util::pin_target_dir();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = dispatch(&args);
    if let Err(e) = result {
        eprintln!("xtask: {e}");
        std::process::exit(1);
    }
}

fn dispatch(args: &[String]) -> Result {
    let Some((task, rest)) = args.split_first() else {
        println!("{HELP}");
        return Ok(());
    };
    match task.as_str() {
        "help" | "-h" | "--help" => {
            println!("{HELP}");
            Ok(())
        }
        "test" => test::run_steps(rest),
        "examples" => no_args(task, rest).and_then(|()| tasks::examples()),
        "sanitize" => no_args(task, rest).and_then(|()| tasks::sanitize()),
        "miri" => no_args(task, rest).and_then(|()| tasks::miri()),
        "fuzz" => tasks::fuzz(rest),
        "firmware" => firmware::run(rest),
        "header" => tasks::header(rest),
        "release" => release::run_task(rest),
        "clib-test" => release::clib_test(rest),
        "gen-model" => gen_model::run(rest),
        "fixtures" => no_args(task, rest).and_then(|()| tasks::fixtures()),
        "demo" => no_args(task, rest).and_then(|()| tasks::demo()),
        "bench-fit" => no_args(task, rest).and_then(|()| tasks::bench_fit()),
        "deps" => no_args(task, rest).and_then(|()| tasks::deps()),
        other => Err(format!(
            "unknown task {other:?}; `cargo xtask help` lists them"
        )),
    }
}

fn no_args(task: &str, rest: &[String]) -> Result {
    if rest.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{task} takes no arguments (got {rest:?}); see `cargo xtask help`"
        ))
    }
}
