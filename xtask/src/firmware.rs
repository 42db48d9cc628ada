//! `cargo xtask firmware ...`: the static library for a target, and the checks
//! on the emulated Cortex-M4F (QEMU mps2-an386) and the link-only targets; the
//! cost on the other emulated MCUs (`firmware targets`).
//! The gcc link lines and QEMU runs are in scripts/; which run, and in what
//! order, is here.

use crate::tasks::{ensure_firmware_packages, ensure_targets};
use crate::util::{cargo, cmd, heading, script, secs, timed, user_path, Result};

const USAGE: &str = "usage: cargo xtask firmware build [TARGET] [--features F]
       cargo xtask firmware run MODEL.kpca VECTORS.csv OUT_DIR
       cargo xtask firmware test
       cargo xtask firmware harness | c-firmware | link-check | downstream | no-panic | no-loader | learn
       cargo xtask firmware rust [KERNEL M D K]
       cargo xtask firmware cost [--quick]
       cargo xtask firmware targets";

pub fn run(args: &[String]) -> Result {
    let Some((sub, rest)) = args.split_first() else {
        return Err(USAGE.into());
    };
    match (sub.as_str(), rest) {
        ("build", rest) => build(rest),
        ("run", [model, vectors, out]) => {
            m4f_tools()?;
            run_cmd(
                script("firmware-run.sh")
                    .arg(user_path(model))
                    .arg(user_path(vectors))
                    .arg(user_path(out)),
            )
        }
        ("test", []) => test(&[]),
        ("rust", rest) if rest.is_empty() || rest.len() == 4 => {
            m4f_tools()?;
            run_cmd(script("firmware-rust.sh").args(rest))
        }
        ("cost", []) => cost(false),
        ("cost", [q]) if q == "--quick" => cost(true),
        (name, []) => match CHECKS.iter().find(|c| c.name == name) {
            Some(check) => {
                m4f_tools()?;
                (check.run)()
            }
            None => Err(format!("unknown firmware task {name:?}\n{USAGE}")),
        },
        _ => Err(USAGE.into()),
    }
}

// `run` is this module's entry point.
use crate::util::run as run_cmd;

/// arm-none-eabi-gcc, newlib, QEMU and the thumbv7em target.
fn m4f_tools() -> Result {
    ensure_targets(&["thumbv7em-none-eabihf"])?;
    ensure_firmware_packages(false)
}

fn build(args: &[String]) -> Result {
    let host = crate::release::host_triple()?;
    let mut target = "thumbv7em-none-eabihf";
    let mut features = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--features" => features = Some(it.next().ok_or(USAGE)?.as_str()),
            "host" => target = &host,
            t if !t.starts_with('-') => target = t,
            _ => return Err(USAGE.into()),
        }
    }
    ensure_targets(&[target])?;
    // The binutils of the target's toolchain (ld -r, objcopy, ar, nm).
    ensure_firmware_packages(target.starts_with("riscv"))?;
    let mut c = script("build-firmware-lib.sh");
    c.arg(target);
    if let Some(f) = features {
        c.arg(f);
    }
    run_cmd(&mut c)
}

fn cost(quick: bool) -> Result {
    m4f_tools()?;
    let mut c = script("firmware-cost.sh");
    if quick {
        c.arg("--quick");
    }
    run_cmd(&mut c)
}

/// `firmware targets`: the cost on the emulated Cortex-M0, M4F, M33, M7 and
/// RV32IMAC (scripts/firmware-targets.sh; QEMU's Arm and RISC-V system
/// emulators, both gcc toolchains, every target's library).
fn targets() -> Result {
    ensure_targets(&[
        "thumbv6m-none-eabi",
        "thumbv7em-none-eabihf",
        "thumbv8m.main-none-eabihf",
        "riscv32imac-unknown-none-elf",
    ])?;
    ensure_firmware_packages(true)?;
    run_cmd(&mut script("firmware-targets.sh"))
}

/// The `learn` check: the demo's files, then the on-device fit against them,
/// then the quick cost table.
fn learn() -> Result {
    let dir = crate::util::target_dir().join("learn-demo");
    run_cmd(
        cargo()
            .args([
                "run",
                "-q",
                "--release",
                "-p",
                "kpca-cli",
                "--example",
                "demo",
                "--",
                "--output-dir",
            ])
            .arg(&dir),
    )?;
    run_cmd(script("firmware-learn.sh").arg(&dir))?;
    run_cmd(script("learn-cost.sh").arg("--quick"))
}

/// One firmware check of `firmware test`.
pub struct Check {
    pub name: &'static str,
    pub what: &'static str,
    pub run: fn() -> Result,
}

pub const CHECKS: [Check; 11] = [
    Check {
        name: "harness",
        what: "bare-metal harness self-test on QEMU mps2-an386 (make -C c-examples/firmware check)",
        run: || run_cmd(cmd("make").args(["-s", "-C", "c-examples/firmware", "check"])),
    },
    Check {
        name: "c-firmware",
        what: "C firmware + libkpca.a on QEMU against the host's f64 fit (tests/firmware_qemu.rs)",
        run: || {
            run_cmd(
                cargo()
                    .args(["test", "-p", "kpca-fit", "--test", "firmware_qemu"])
                    .env("KPCA_REQUIRE_FIRMWARE_TOOLS", "1"),
            )
        },
    },
    Check {
        name: "rust",
        what: "Rust no_std firmware (firmware/rust-m4f) with owned fixed-capacity models on QEMU",
        run: || run_cmd(&mut script("firmware-rust.sh")),
    },
    Check {
        name: "link-check",
        what: "libkpca.a linked into C firmware for thumbv6m-none-eabi and riscv32imac-unknown-none-elf",
        run: || {
            ensure_targets(&["thumbv6m-none-eabi", "riscv32imac-unknown-none-elf"])?;
            ensure_firmware_packages(true)?;
            run_cmd(&mut script("link-check.sh"))
        },
    },
    Check {
        name: "downstream",
        what: "a copy of firmware/rust-m4f built outside the repository (no .cargo/config.toml), \
               with and without the repository's flags: same projection code (scripts/downstream-size.sh)",
        run: || run_cmd(&mut script("downstream-size.sh")),
    },
    Check {
        name: "no-panic",
        what: "no panic machinery reachable from the C API in the thumbv7em libkpca.a",
        run: || run_cmd(&mut script("no-panic-check.sh")),
    },
    Check {
        name: "no-loader",
        what: "a firmware on the generated model (const kpca_model, kernel entry points or kpca_project) \
               links no loader, the blob's does (scripts/generated-model-check.sh)",
        run: || run_cmd(&mut script("generated-model-check.sh")),
    },
    Check {
        name: "variants",
        what: "every loop variant of the register passes (6 kernels x 9 shapes) bit-identical to the host \
               on the emulated Cortex-M4F (scripts/firmware-variants.sh, about 35 s)",
        run: || run_cmd(&mut script("firmware-variants.sh")),
    },
    Check {
        name: "cost",
        what: "cost on the emulated Cortex-M4F, quick (m=128, d=8, k=4 and every kernel)",
        run: || run_cmd(script("firmware-cost.sh").arg("--quick")),
    },
    Check {
        name: "learn",
        what: "learning on the device: the demo's model fitted by the emulated Cortex-M4F (kpca_fit) against \
               the host-fitted one (scripts/firmware-learn.sh), and the fit's cost at n = 32 (scripts/learn-cost.sh)",
        run: learn,
    },
    Check {
        name: "targets",
        what: "cost and self-check on the emulated Cortex-M0, M4F, M33, M7 and RV32IMAC \
               (scripts/firmware-targets.sh, about 40 s)",
        run: targets,
    },
];

/// `firmware test`: every check, in order, stopping at the first failure;
/// `except` names checks that already ran elsewhere (said so, not silent).
pub fn test(except: &[(&str, &str)]) -> Result {
    m4f_tools()?;
    let mut times = Vec::new();
    for check in &CHECKS {
        if let Some((_, why)) = except.iter().find(|(n, _)| *n == check.name) {
            heading(1, &format!("firmware {}: not run here: {why}", check.name));
            continue;
        }
        heading(1, &format!("firmware {}: {}", check.name, check.what));
        let (result, took) = timed(check.run);
        result.map_err(|e| format!("firmware {}: {e}", check.name))?;
        times.push((check.name, took));
    }
    let line: Vec<String> = times
        .iter()
        .map(|(n, t)| format!("{n} {}", secs(*t)))
        .collect();
    println!("\nfirmware test: all passed ({})", line.join(", "));
    Ok(())
}
