//! `libkpca.a`: the C ABI of the `kpca` crate as one static library.
//!
//! This crate only re-exports the `extern "C"` functions of `kpca-capi` and, on
//! targets without an operating system, supplies the panic handler a `no_std`
//! static library needs. Build it with `panic = "abort"` (the workspace release
//! profile does); no panic path is reachable from the C API, and a build that
//! would unwind is refused below.
#![no_std]

pub use kpca_capi::*;

#[cfg(not(panic = "abort"))]
compile_error!("libkpca.a must be built with panic = \"abort\" (use --release)");

/// The panic handler of the static library. The C API has no reachable panic
/// path; should one ever be introduced, the firmware stops here instead of
/// unwinding into C.
#[panic_handler]
fn on_panic(_info: &core::panic::PanicInfo<'_>) -> ! {
    loop {
        core::hint::spin_loop();
    }
}

/// Test only (feature `panic-probe`, never in a release library): an entry
/// point with a reachable panic (an index checked at run time), used by
/// scripts/no-panic-check.sh to prove that its check detects panic paths.
#[cfg(feature = "panic-probe")]
#[no_mangle]
pub extern "C" fn kpca_panic_probe(index: usize) -> u8 {
    const TABLE: [u8; 3] = [1, 2, 3];
    TABLE[index]
}
