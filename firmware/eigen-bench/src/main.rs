//! The on-device fit's eigensolver against nalgebra's, on the emulated
//! Cortex-M4F: the centred RBF kernel matrix of N synthetic points (the
//! points of c-examples/firmware/learn_bench.c), then every eigenpair by
//! `kpca_core::learn::eigen::symmetric_eigen` (in place, caller's buffers, any N)
//! or by nalgebra's `SymmetricEigen` on an `SMatrix<f32, N, N>` (no_std
//! without alloc needs a size fixed at compile time; the matrix is passed by
//! value; its fixed sizes stop at 127, so N = 128 does not build).
//! EIGEN_SOLVER=none builds the matrix only (the baseline of
//! scripts/eigen-bench.sh). Prints the largest eigenvalue and the whole
//! program's stack high-water mark (painted); exits 0.
#![no_std]
#![no_main]

use core::panic::PanicInfo;
use cortex_m_rt::{entry, exception, ExceptionFrame};
use cortex_m_semihosting::{debug, hprintln};

mod settings {
    include!(concat!(env!("OUT_DIR"), "/settings.rs"));
}
use settings::{N, SOLVER};

static mut MATRIX: [f32; N * N] = [0.0; N * N];
static mut SCRATCH: [[f32; N]; 3] = [[0.0; N]; 3];

/// The centred RBF kernel matrix (gamma 1/2) of N points on two rings.
fn fill(a: &mut [f32; N * N]) {
    let mut state = 12345u32;
    let mut uniform = || {
        state = state.wrapping_mul(1664525).wrapping_add(1013904223);
        (state >> 8) as f32 / 8388608.0 - 1.0
    };
    let mut pts = [[0.0f32; 2]; N];
    for (i, p) in pts.iter_mut().enumerate() {
        let t = uniform();
        let r = if i % 2 == 0 { 1.0 } else { 0.5 };
        let q = 1.0 + t * t;
        *p = [r * (1.0 - t * t) / q + 0.05 * uniform(), r * 2.0 * t / q + 0.05 * uniform()];
    }
    for i in 0..N {
        for j in 0..N {
            let (dx, dy) = (pts[i][0] - pts[j][0], pts[i][1] - pts[j][1]);
            a[i * N + j] = libm::expf(-0.5 * (dx * dx + dy * dy));
        }
    }
    let mut r = [0.0f32; N];
    for i in 0..N {
        r[i] = a[i * N..(i + 1) * N].iter().sum::<f32>() / N as f32;
    }
    let g = r.iter().sum::<f32>() / N as f32;
    for i in 0..N {
        for j in 0..N {
            a[i * N + j] += g - r[i] - r[j];
        }
    }
}

extern "C" {
    static mut __sheap: u32;
    static mut _stack_start: u32;
}

/// Paints the RAM between the end of the statics and (a little below) the
/// current stack pointer, so that [`stack_high_water`] can tell how deep the
/// stack went.
#[inline(always)]
fn stack_paint() {
    let sp = cortex_m::register::msp::read() as usize;
    let mut p = core::ptr::addr_of_mut!(__sheap) as usize;
    while p + 4 < sp - 64 {
        // SAFETY: free RAM between the statics and the stack.
        unsafe { core::ptr::write_volatile(p as *mut u32, PAINT) };
        p += 4;
    }
}

/// Bytes of stack used so far: from the top of the stack down to the lowest
/// word no longer painted.
fn stack_high_water() -> usize {
    let mut p = core::ptr::addr_of_mut!(__sheap) as usize;
    // SAFETY: reads of the painted region.
    while unsafe { core::ptr::read_volatile(p as *const u32) } == PAINT {
        p += 4;
    }
    core::ptr::addr_of_mut!(_stack_start) as usize - p
}

const PAINT: u32 = 0xC5A5_C5A5;

#[entry]
fn main() -> ! {
    // SAFETY: the only references to the statics, taken once here.
    let (a, scratch) = unsafe { (&mut *core::ptr::addr_of_mut!(MATRIX), &mut *core::ptr::addr_of_mut!(SCRATCH)) };
    stack_paint();
    fill(a);
    let mut largest = 0.0f32;
    match SOLVER {
        1 => {
            let [d, e, t] = scratch;
            let mut s = kpca_core::learn::eigen::EigenScratch { diag: d, sub: e, tmp: t };
            if kpca_core::learn::eigen::symmetric_eigen(a, N, &mut s).is_ok() {
                largest = s.diag.iter().fold(f32::MIN, |m, v| m.max(*v));
            }
        }
        #[cfg(nalgebra_solver)]
        2 => {
            let m = nalgebra::SMatrix::<f32, N, N>::from_row_slice(&a[..]);
            let eig = nalgebra::SymmetricEigen::new(m);
            largest = eig.eigenvalues.iter().fold(f32::MIN, |m, v| m.max(*v));
            core::hint::black_box(&eig.eigenvectors);
        }
        _ => {}
    }
    let stack = stack_high_water();
    hprintln!("eigen-bench n={} solver={} largest={} stack={}", N, SOLVER, largest, stack);
    debug::exit(debug::EXIT_SUCCESS);
    loop {}
}

#[panic_handler]
fn panic(_: &PanicInfo) -> ! {
    debug::exit(debug::EXIT_FAILURE);
    loop {}
}

#[exception]
unsafe fn HardFault(_: &ExceptionFrame) -> ! {
    debug::exit(debug::EXIT_FAILURE);
    loop {}
}
