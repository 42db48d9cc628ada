//! The run of [`super::run_rows_rust`] in Arm assembly (hard-float Cortex-M;
//! see [`super`] for why). One `asm!` block per kernel and variant, made by
//! `run_block!` from the variant's pieces (its setup, point read and A
//! read) and the kernel's loop (`rbf_body!` and the others), each a macro
//! below.
//!
//! Registers: s0-s7 x' (register runs: right-aligned, for the whole run,
//! each point read as exactly its d floats through `dot_exact!`; chunked
//! runs: one chunk at a time, then the second group of sums of k > 8), s8-s15 the
//! component sums, s16-s23 one block of loads (a point's floats, then the
//! exponential's constants, then the A row), s24 c'k, s25 base, s26
//! norm_scale, s27 the point's sum w, s28 ‖z‖² then the kernel value, s29
//! the polynomial's argument g then c, s30 2 log2(e), s31 the sigmoid's u.
//! The exponential is [`crate::fastmath::exp2_neg_with`] step for step:
//! t = w + 2^23, n = bits(t) - bits(2^23), out of range (n > 124 unsigned)
//! 1 for w < 0 else 0, g = (t - 2^23) - w, Horner from q5 down to 1 (each
//! step overwriting a constant of this point's load), bits(p) - n·2^23.
//! Offsets into [`RunState`] are asserted in [`super`].
//!
//! Wide runs (`wide_block!`: chunked runs of 2 chunks and k <= 4, for the
//! rbf kernel and the Laplacian of d = 16) keep x' in s0-s15 for the whole
//! run instead of reloading it chunk by chunk: 4 sums in s16-s19, c'k s20,
//! base and norm_scale (Laplacian: gamma log2(e)) s21-s22, the point's sum
//! and then its kernel value s23, one block of loads s24-s31. About 7
//! instructions per point fewer at d = 16 (rbf 52 per point, Laplacian 74).
//!
//! Where a kernel's argument w is known to be >= 0 (the Laplacian), the
//! range test is one compare of bits(t) with bits(2^23) + 124 held in a
//! register, and the wide Laplacian forms t and (t - 2^23) - w with one
//! `vmla` and one `vmls` from the L1 distance (the same roundings as
//! forming w first: M-profile `vmla`/`vmls` round the product, then the
//! sum). scripts/firmware-variants.sh checks every variant bit for bit
//! against the Rust loop.

use super::{RowPtrs, RunState};
use crate::fastmath::EXP2_BLOCK;

/// Lines of assembly joined into one template piece.
macro_rules! lines {
    ($($line:expr),* $(,)?) => {
        concat!($($line, "\n"),*)
    };
}

/// The exponential: 2^-w of s27 into s28, [`crate::fastmath::exp2_neg_with`]
/// step for step; out of range, to the label `$oor` (forwards).
macro_rules! exp2 {
    ($oor:literal) => {
        exp2_with!($oor, lines!("sub {t}, {t}, #0x4B000000", "cmp {t}, #124"))
    };
}

/// [`exp2`] for w >= 0 (or +inf; the Laplacian's gamma log2(e) times an L1
/// distance): the range test n = bits(t) - bits(2^23) <= 124 is then
/// bits(t) <= bits(2^23) + 124, held in {adj} ([`l1_limit`]), with no
/// subtraction; bits(t) << 23 is n << 23, the bits of 2^23 shifted out.
macro_rules! exp2_nonneg {
    ($oor:literal) => {
        exp2_with!($oor, lines!("cmp {t}, {adj}"))
    };
}

/// The steps of [`exp2`] around the range test `$test` (flags for `bhi`
/// out of range, from bits(t) in {t}).
macro_rules! exp2_with {
    ($oor:literal, $test:expr) => {
        concat!(
            lines!(
                "vldmia {kc}, {{s16-s22}}",
                "vadd.f32 s28, s27, s16",
                "vmov {t}, s28",
            ),
            $test,
            lines!(
                concat!("bhi ", $oor, "f"),
                "vsub.f32 s29, s28, s16",
                "vsub.f32 s29, s29, s27",
                "vmla.f32 s21, s29, s22",
                "vmla.f32 s20, s29, s21",
                "vmla.f32 s19, s29, s20",
                "vmla.f32 s18, s29, s19",
                "vmla.f32 s17, s29, s18",
                "vmov {u}, s17",
                "sub {u}, {u}, {t}, lsl #23",
                "vmov s28, {u}",
            )
        )
    };
}

/// The exponential out of range: 1 for w < 0, else 0 (NaN included), then
/// back to the label `$back`.
macro_rules! exp2_out_of_range {
    ($back:literal) => {
        lines!(
            "vmov.f32 s28, #1.0",
            "vcmp.f32 s27, #0",
            "vmrs APSR_nzcv, fpscr",
            "it pl",
            "vsubpl.f32 s28, s28, s28",
            concat!("b ", $back, "b"),
        )
    };
}

/// c'k += kernel value · c_i.
macro_rules! c_term {
    () => {
        lines!("vldmia {c}!, {{s29}}", "vmla.f32 s24, s28, s29")
    };
}

/// The next A row, and the loop back to the label `$head` while points are left.
macro_rules! next_point {
    ($head:literal) => {
        lines!(
            "add {a}, {a}, {ks}",
            "cmp {c}, {end}",
            concat!("bne ", $head, "b"),
            "b 24f",
        )
    };
}

/// Register runs: x' (right-aligned in the stage) into s0-s7 for the whole run,
/// d - 1 into {v} for the dispatch of [`dot_exact`].
macro_rules! register_setup {
    () => {
        lines!(
            "ldr {t}, [{p}, #76]",
            "vldmia {t}, {{s0-s7}}",
            "ldr {v}, [{p}, #88]",
            "lsrs {v}, {v}, #2",
            "subs {v}, {v}, #1",
        )
    };
}

/// Register runs: the d products of x' (right-aligned: x'_j in lane
/// 8 - d + j) and the point's d floats, in feature order, into s27. A table
/// branch on d - 1 ({v}) reaches the read of exactly d floats (write-back:
/// the row is the read, so no read leaves the section and no row is read
/// backwards), which goes on into the chain of multiply-adds at lane 8 - d.
macro_rules! dot_exact {
    () => {
        concat!(
            exact_dispatch!(),
            lines!(
                "b 61f",
                "58:",
                "vldmia {z}!, {{s16-s23}}",
                "vmla.f32 s27, s0, s16",
                "61:",
                "vmla.f32 s27, s1, s17",
                "62:",
                "vmla.f32 s27, s2, s18",
                "63:",
                "vmla.f32 s27, s3, s19",
                "64:",
                "vmla.f32 s27, s4, s20",
                "65:",
                "vmla.f32 s27, s5, s21",
                "66:",
                "vmla.f32 s27, s6, s22",
                "67:",
                "vmla.f32 s27, s7, s23",
            ),
        )
    };
}

/// The dispatch of the exact-width register reads: a table branch on d - 1
/// ({v}) to the read of exactly d floats into the last d of s16-s23 with
/// write-back, each then branching to the chain's label for lane 8 - d
/// (61..67 for lanes 1..7; label 58 is d = 8, lane 0). The read for d = 7
/// (label 57) is last and goes on into what the caller puts after it.
macro_rules! exact_dispatch {
    () => {
        lines!(
            "tbb [pc, {v}]",
            "50:",
            ".byte (51f - 50b) / 2",
            ".byte (52f - 50b) / 2",
            ".byte (53f - 50b) / 2",
            ".byte (54f - 50b) / 2",
            ".byte (55f - 50b) / 2",
            ".byte (56f - 50b) / 2",
            ".byte (57f - 50b) / 2",
            ".byte (58f - 50b) / 2",
            "51:",
            "vldmia {z}!, {{s23}}",
            "b 67f",
            "52:",
            "vldmia {z}!, {{s22-s23}}",
            "b 66f",
            "53:",
            "vldmia {z}!, {{s21-s23}}",
            "b 65f",
            "54:",
            "vldmia {z}!, {{s20-s23}}",
            "b 64f",
            "55:",
            "vldmia {z}!, {{s19-s23}}",
            "b 63f",
            "56:",
            "vldmia {z}!, {{s18-s23}}",
            "b 62f",
            "57:",
            "vldmia {z}!, {{s17-s23}}",
        )
    };
}

/// The 8 products of x' (s0-s7) and the loaded floats (s16-s23) into s27.
macro_rules! dot8 {
    () => {
        lines!(
            "vmla.f32 s27, s0, s16",
            "vmla.f32 s27, s1, s17",
            "vmla.f32 s27, s2, s18",
            "vmla.f32 s27, s3, s19",
            "vmla.f32 s27, s4, s20",
            "vmla.f32 s27, s5, s21",
            "vmla.f32 s27, s6, s22",
            "vmla.f32 s27, s7, s23",
        )
    };
}

/// Register runs: one point's sum w = base + norm_scale ‖z‖² + x'z into s27.
macro_rules! register_dot {
    () => {
        concat!(
            lines!(
                "vldmia {n}!, {{s28}}",
                "vmov.f32 s27, s25",
                "vmla.f32 s27, s26, s28",
            ),
            dot_exact!(),
        )
    };
}

/// Register runs of the kernels without a ‖z‖² term (linear, polynomial,
/// sigmoid, cosine): w = base + x'z into s27.
macro_rules! plain_register_dot {
    () => {
        concat!(lines!("vmov.f32 s27, s25"), dot_exact!())
    };
}

/// Chunked runs: the same sum, x' and the point read chunk by chunk.
macro_rules! chunked_dot {
    () => {
        concat!(
            lines!(
                "vldmia {n}!, {{s28}}",
                "vmov.f32 s27, s25",
                "vmla.f32 s27, s26, s28",
            ),
            chunks_dot!(),
        )
    };
}

/// Chunked runs of the kernels without a ‖z‖² term.
macro_rules! plain_chunked_dot {
    () => {
        concat!(lines!("vmov.f32 s27, s25"), chunks_dot!())
    };
}

/// The `full` chunks of 8 products of x' (from the stage) and the point
/// into s27, then the row adjustment to the next point.
macro_rules! chunks_dot {
    () => {
        concat!(
            lines!(
                "ldrd {v}, {u}, [{p}, #76]",
                "25:",
                "vldmia {v}!, {{s0-s7}}",
                "vldmia {z}!, {{s16-s23}}",
            ),
            dot8!(),
            lines!("subs {u}, {u}, #1", "bne 25b", "add {z}, {z}, {adj}"),
        )
    };
}

/// One float of an L1 distance: |x'_j - z_j| (registers `$x`, `$z`; `$z`
/// overwritten) added into `$acc` (s27, or s23 in wide runs).
macro_rules! l1_lane {
    ($acc:literal, $x:literal, $z:literal) => {
        lines!(
            concat!("vsub.f32 ", $z, ", ", $x, ", ", $z),
            concat!("vabs.f32 ", $z, ", ", $z),
            concat!("vadd.f32 ", $acc, ", ", $acc, ", ", $z),
        )
    };
}

/// Lanes 1..8 of an L1 chunk (x' in s0-s7, the point's floats in s16-s23).
macro_rules! l1_lanes_1_to_7 {
    () => {
        concat!(
            l1_lane!("s27", "s1", "s17"),
            l1_lane!("s27", "s2", "s18"),
            l1_lane!("s27", "s3", "s19"),
            l1_lane!("s27", "s4", "s20"),
            l1_lane!("s27", "s5", "s21"),
            l1_lane!("s27", "s6", "s22"),
            l1_lane!("s27", "s7", "s23"),
        )
    };
}

/// Laplacian runs: the out-of-range bound of [`exp2_nonneg`] into {adj}
/// (unused by the Laplacian's reads, whose rows end where the next begins).
macro_rules! l1_limit {
    () => {
        lines!("movw {adj}, #0x7C", "movt {adj}, #0x4B00")
    };
}

/// Laplacian register runs (d = 8): x' into s0-s7, and the bound.
macro_rules! l1_register_setup {
    () => {
        concat!(
            lines!("ldr {t}, [{p}, #76]", "vldmia {t}, {{s0-s7}}"),
            l1_limit!()
        )
    };
}

/// Laplacian register runs of d < 8: x' (right-aligned) into s0-s7, d - 1
/// into {v} for the dispatch of [`l1_dot_exact`], and the bound.
macro_rules! l1_exact_setup {
    () => {
        concat!(register_setup!(), l1_limit!())
    };
}

/// Laplacian register runs of d < 8: ‖x' - z‖₁ over exactly the point's d
/// floats, from 0 (s25, the Laplacian's base) in feature order, through
/// [`exact_dispatch`] into the chain of L1 lanes at lane 8 - d (d = 8 has
/// the block of [`l1_register_dot`], so label 58 is never reached here),
/// then w = gamma log2(e) (s30) times it into s27.
macro_rules! l1_dot_exact {
    () => {
        concat!(
            lines!("@ {n}: the Laplacian reads no norms", "vmov.f32 s27, s25",),
            exact_dispatch!(),
            lines!("58:", "61:"),
            l1_lane!("s27", "s1", "s17"),
            "62:\n",
            l1_lane!("s27", "s2", "s18"),
            "63:\n",
            l1_lane!("s27", "s3", "s19"),
            "64:\n",
            l1_lane!("s27", "s4", "s20"),
            "65:\n",
            l1_lane!("s27", "s5", "s21"),
            "66:\n",
            l1_lane!("s27", "s6", "s22"),
            "67:\n",
            l1_lane!("s27", "s7", "s23"),
            lines!("vmul.f32 s27, s27, s30"),
        )
    };
}

/// Laplacian register runs (d = 8, x' in s0-s7, read with write-back: the
/// row is the read): ‖x' - z‖₁ from
/// |x'_0 - z_0| (which equals 0 + |x'_0 - z_0|, the Rust loop's first step)
/// in feature order, then w = gamma log2(e) (s30) times it into s27.
macro_rules! l1_register_dot {
    () => {
        concat!(
            lines!(
                "@ {n} {v}: the Laplacian reads no norms, d = 8 needs no dispatch",
                "vldmia {z}!, {{s16-s23}}",
                "vsub.f32 s16, s0, s16",
                "vabs.f32 s27, s16",
            ),
            l1_lanes_1_to_7!(),
            lines!("vmul.f32 s27, s27, s30"),
        )
    };
}

/// Laplacian chunked runs: ‖x' - z‖₁ from 0, `full` chunks of 8 floats,
/// then `rest` single floats (d floats in all, nothing past the point's
/// row), then w = gamma log2(e) (s30) times it into s27.
macro_rules! l1_chunked_dot {
    () => {
        concat!(
            lines!(
                "@ {n}: the Laplacian reads no norms",
                "vmov.f32 s27, s25",
                "ldrd {v}, {u}, [{p}, #76]",
                "cmp {u}, #0",
                "beq 26f",
                "25:",
                "vldmia {v}!, {{s0-s7}}",
                "vldmia {z}!, {{s16-s23}}",
                "vsub.f32 s16, s0, s16",
                "vabs.f32 s16, s16",
                "vadd.f32 s27, s27, s16",
            ),
            l1_lanes_1_to_7!(),
            lines!(
                "subs {u}, {u}, #1",
                "bne 25b",
                "26:",
                "ldr {u}, [{p}, #140]",
                "cmp {u}, #0",
                "beq 28f",
                "27:",
                "vldmia {v}!, {{s0}}",
                "vldmia {z}!, {{s16}}",
                "vsub.f32 s16, s0, s16",
                "vabs.f32 s16, s16",
                "vadd.f32 s27, s27, s16",
                "subs {u}, {u}, #1",
                "bne 27b",
                "28:",
                "vmul.f32 s27, s27, s30",
            ),
        )
    };
}

/// 4 component sums: the A row (s16-s19) times the kernel value into s8-s11.
macro_rules! a_row4 {
    () => {
        lines!(
            "vldmia {a}, {{s16-s19}}",
            "vmla.f32 s8, s28, s16",
            "vmla.f32 s9, s28, s17",
            "vmla.f32 s10, s28, s18",
            "vmla.f32 s11, s28, s19",
        )
    };
}

/// 8 component sums into s8-s15.
macro_rules! a_row8 {
    () => {
        lines!(
            "vldmia {a}, {{s16-s23}}",
            "vmla.f32 s8, s28, s16",
            "vmla.f32 s9, s28, s17",
            "vmla.f32 s10, s28, s18",
            "vmla.f32 s11, s28, s19",
            "vmla.f32 s12, s28, s20",
            "vmla.f32 s13, s28, s21",
            "vmla.f32 s14, s28, s22",
            "vmla.f32 s15, s28, s23",
        )
    };
}

/// 16 component sums: 8 into s8-s15, and the second group (`group2` bytes
/// into the row) into the sums kept in the run state (through s0-s7).
macro_rules! a_row16 {
    () => {
        concat!(
            a_row8!(),
            lines!(
                "ldr {t}, [{p}, #104]",
                "add {t}, {a}, {t}",
                "vldmia {t}, {{s16-s23}}",
                "add {u}, {p}, #108",
                "vldmia {u}, {{s0-s7}}",
                "vmla.f32 s0, s28, s16",
                "vmla.f32 s1, s28, s17",
                "vmla.f32 s2, s28, s18",
                "vmla.f32 s3, s28, s19",
                "vmla.f32 s4, s28, s20",
                "vmla.f32 s5, s28, s21",
                "vmla.f32 s6, s28, s22",
                "vmla.f32 s7, s28, s23",
                "vstmia {u}, {{s0-s7}}",
            ),
        )
    };
}

/// One `asm!` block over a run: `$pre` (the loads of the run's state and
/// the variant's setup), then `$body` (one kernel's loop over the points,
/// from label 21, or on to label 24 when no point is left), then `$post`
/// (the stores of the run's sums). Every core register is an operand, every
/// `s` register declared clobbered; no stack.
macro_rules! asm_run {
    ($st:expr, $rows:expr, $pre:expr, $body:expr, $post:expr) => {{
        let st: *mut RunState = $st;
        let rows: RowPtrs = $rows;
        // SAFETY: the caller's contract (see `run`).
        let end = unsafe { rows.c.add(rows.n) };
        // SAFETY: the reads are those of `run_rows_rust` (the caller's
        // contract) and the exponential's constants; the writes are the
        // run's sums and c'k in `*st`; every s register used is declared
        // clobbered, the core registers are operands; no stack.
        unsafe {
            core::arch::asm!(
                $pre,
                "cmp {c}, {end}",
                "beq 24f",
                $body,
                "24:",
                $post,
                p = in(reg) st,
                kc = in(reg) EXP2_BLOCK.as_ptr(),
                z = inout(reg) rows.z => _,
                n = inout(reg) rows.norms => _,
                c = inout(reg) rows.c => _,
                a = inout(reg) rows.a => _,
                end = in(reg) end,
                adj = inout(reg) (*st).tail => _,
                ks = out(reg) _,
                t = out(reg) _,
                u = out(reg) _,
                v = out(reg) _,
                out("s0") _, out("s1") _, out("s2") _, out("s3") _,
                out("s4") _, out("s5") _, out("s6") _, out("s7") _,
                out("s8") _, out("s9") _, out("s10") _, out("s11") _,
                out("s12") _, out("s13") _, out("s14") _, out("s15") _,
                out("s16") _, out("s17") _, out("s18") _, out("s19") _,
                out("s20") _, out("s21") _, out("s22") _, out("s23") _,
                out("s24") _, out("s25") _, out("s26") _, out("s27") _,
                out("s28") _, out("s29") _, out("s30") _, out("s31") _,
                options(nostack)
            );
        }
    }};
}

/// The `asm!` block of one variant: `$setup` (the x' of register runs),
/// then `$body` (one kernel's loop over the points, from label 21 or on to
/// label 24 when no point is left), around the loads and stores of the
/// run's sums (s8-s15, c'k s24, base and norm_scale s25-s26, s30 the
/// kernel's post_scale).
macro_rules! run_block {
    ($st:expr, $rows:expr, $setup:expr, $body:expr) => {
        asm_run!(
            $st,
            $rows,
            concat!(
                lines!(
                    "@ {adj}: chunked runs' row adjustment",
                    "vldmia {p}, {{s25-s26}}",
                    "add {t}, {p}, #8",
                    "vldmia {t}, {{s8-s15}}",
                    "vldr s24, [{p}, #72]",
                    "ldr {ks}, [{p}, #92]",
                    "vldr s30, [{p}, #100]",
                ),
                $setup
            ),
            $body,
            lines!(
                "add {t}, {p}, #8",
                "vstmia {t}, {{s8-s15}}",
                "vstr s24, [{p}, #72]",
            )
        )
    };
}

/// The rbf and Laplacian loop: `$dist` (a point's exponent w into s27),
/// 2^-w, c'k, `$acc`.
macro_rules! rbf_body {
    ($dist:expr, $acc:expr) => {
        concat!(
            "21:\n",
            $dist,
            exp2!("23"),
            "22:\n",
            c_term!(),
            $acc,
            next_point!("21"),
            "23:\n",
            exp2_out_of_range!("22"),
        )
    };
}

/// The Laplacian loop: as [`rbf_body`], with [`exp2_nonneg`].
macro_rules! laplacian_body {
    ($dist:expr, $acc:expr) => {
        concat!(
            "21:\n",
            $dist,
            exp2_nonneg!("23"),
            "22:\n",
            c_term!(),
            $acc,
            next_point!("21"),
            "23:\n",
            exp2_out_of_range!("22"),
        )
    };
}

/// The polynomial loop: u^degree by repeated squaring.
macro_rules! poly_body {
    ($dist:expr, $acc:expr) => {
        concat!(
            "21:\n",
            $dist,
            lines!(
                "@ {kc} {u} {n}: unused by the polynomial",
                "ldr {t}, [{p}, #96]",
                "vmov.f32 s28, #1.0",
                "vmov.f32 s29, s27",
                "27:",
                "lsrs {t}, {t}, #1",
                "it cs",
                "vmulcs.f32 s28, s28, s29",
                "vmul.f32 s29, s29, s29",
                "bne 27b",
            ),
            c_term!(),
            $acc,
            next_point!("21"),
        )
    };
}

/// The sigmoid loop: tanh(u) from e = 2^-(2 log2(e) |u|).
macro_rules! sigmoid_body {
    ($dist:expr, $acc:expr) => {
        concat!(
            "21:\n",
            $dist,
            lines!(
                "@ {n}: unused by the sigmoid kernel",
                "vmov.f32 s31, s27",
                "vabs.f32 s27, s27",
                "vmul.f32 s27, s27, s30",
            ),
            exp2!("35"),
            lines!(
                "36:",
                "vmov.f32 s16, #1.0",
                "vsub.f32 s17, s16, s28",
                "vadd.f32 s18, s16, s28",
                "vdiv.f32 s28, s17, s18",
                "vcmp.f32 s31, #0",
                "vmrs APSR_nzcv, fpscr",
                "it mi",
                "vnegmi.f32 s28, s28",
                "it vs",
                "vmovvs.f32 s28, s31",
            ),
            c_term!(),
            $acc,
            next_point!("21"),
            "35:\n",
            exp2_out_of_range!("36"),
        )
    };
}

/// The linear loop: the kernel value is the sum itself.
macro_rules! linear_body {
    ($dist:expr, $acc:expr) => {
        concat!(
            "21:\n",
            $dist,
            lines!(
                "@ {kc} {u} {n}: unused by the linear kernel",
                "vmov.f32 s28, s27"
            ),
            c_term!(),
            $acc,
            next_point!("21"),
        )
    };
}

/// The cosine loop: x'z (s27) over ‖x'‖ (s30) times ‖z‖ (the square root
/// of the point's norm, read into s28), 0 where that product is not
/// positive ([`crate::kernel::cosine`] step for step).
macro_rules! cosine_body {
    ($dist:expr, $acc:expr) => {
        concat!(
            "21:\n",
            $dist,
            lines!(
                "@ {kc} {u}: unused by the cosine kernel",
                "vldmia {n}!, {{s28}}",
                "vsqrt.f32 s29, s28",
                "vmul.f32 s29, s30, s29",
                "vsub.f32 s28, s28, s28",
                "vcmp.f32 s29, #0",
                "vmrs APSR_nzcv, fpscr",
                "it gt",
                "vdivgt.f32 s28, s27, s29",
            ),
            c_term!(),
            $acc,
            next_point!("21"),
        )
    };
}

/// The five variants of one kernel's loop `$body`: register runs (x' set
/// up by `$rsetup`, points read by `$rdot`) for k <= 4 and k <= 8, chunked
/// runs (`$cdot`) for k <= 4, <= 8 and <= 16.
macro_rules! variants {
    ($st:expr, $rows:expr, $body:ident, $rsetup:ident, $rdot:ident, $cdot:ident) => {
        variants!($st, $rows, $body, $rsetup, $rdot, no_setup, $cdot)
    };
    ($st:expr, $rows:expr, $body:ident, $rsetup:ident, $rdot:ident, $csetup:ident, $cdot:ident) => {
        match (CHUNKED, KR) {
            (false, 4) => run_block!($st, $rows, $rsetup!(), $body!($rdot!(), a_row4!())),
            (false, _) => run_block!($st, $rows, $rsetup!(), $body!($rdot!(), a_row8!())),
            (true, 4) => run_block!($st, $rows, $csetup!(), $body!($cdot!(), a_row4!())),
            (true, 8) => run_block!($st, $rows, $csetup!(), $body!($cdot!(), a_row8!())),
            (true, _) => run_block!($st, $rows, $csetup!(), $body!($cdot!(), a_row16!())),
        }
    };
}

/// No setup (chunked runs read x' from the stage point by point).
macro_rules! no_setup {
    () => {
        ""
    };
}

/// The `asm!` block of a wide run (k <= 4, x' of up to 16 floats in
/// s0-s15 for the whole run, each point read as two chunks of 8 into
/// s24-s31): the component sums in s16-s19, c'k in s20, what `$setup`
/// loads in s21-s22 (rbf: base and norm_scale; Laplacian: gamma log2(e) in
/// s22), the point's sum and then its kernel value in s23; `$body` as in
/// [`run_block`].
macro_rules! wide_block {
    ($st:expr, $rows:expr, $setup:expr, $body:expr) => {
        asm_run!(
            $st,
            $rows,
            concat!(
                lines!(
                    "@ {v}: unused by wide runs",
                    "add {t}, {p}, #8",
                    "vldmia {t}, {{s16-s19}}",
                    "vldr s20, [{p}, #72]",
                    "ldr {ks}, [{p}, #92]",
                    "ldr {t}, [{p}, #76]",
                    "vldmia {t}, {{s0-s15}}",
                ),
                $setup
            ),
            $body,
            lines!(
                "add {t}, {p}, #8",
                "vstmia {t}, {{s16-s19}}",
                "vstr s20, [{p}, #72]",
            )
        )
    };
}

/// 8 products of x' (`$x0`..) and the chunk in s24-s31 into s23.
macro_rules! wide_dot8 {
    ($x0:literal, $x1:literal, $x2:literal, $x3:literal, $x4:literal, $x5:literal, $x6:literal, $x7:literal) => {
        lines!(
            "vldmia {z}!, {{s24-s31}}",
            concat!("vmla.f32 s23, ", $x0, ", s24"),
            concat!("vmla.f32 s23, ", $x1, ", s25"),
            concat!("vmla.f32 s23, ", $x2, ", s26"),
            concat!("vmla.f32 s23, ", $x3, ", s27"),
            concat!("vmla.f32 s23, ", $x4, ", s28"),
            concat!("vmla.f32 s23, ", $x5, ", s29"),
            concat!("vmla.f32 s23, ", $x6, ", s30"),
            concat!("vmla.f32 s23, ", $x7, ", s31"),
        )
    };
}

/// The end of a wide run's 2^-w: Horner from q5 down to 1 in g (s31, the
/// constants in s25-s30), then bits(p) - n·2^23 (n·2^23 from bits(t) in
/// {t}) into s23, as [`exp2`].
macro_rules! wide_exp2_tail {
    () => {
        lines!(
            "vmla.f32 s29, s31, s30",
            "vmla.f32 s28, s31, s29",
            "vmla.f32 s27, s31, s28",
            "vmla.f32 s26, s31, s27",
            "vmla.f32 s25, s31, s26",
            "vmov {u}, s25",
            "sub {u}, {u}, {t}, lsl #23",
            "vmov s23, {u}",
        )
    };
}

/// c'k, the 4 component sums, the next point (a wide run's kernel value in
/// s23).
macro_rules! wide_point_end {
    () => {
        lines!(
            "22:",
            "vldmia {c}!, {{s24}}",
            "vmla.f32 s20, s23, s24",
            "vldmia {a}, {{s24-s27}}",
            "vmla.f32 s16, s23, s24",
            "vmla.f32 s17, s23, s25",
            "vmla.f32 s18, s23, s26",
            "vmla.f32 s19, s23, s27",
            "add {a}, {a}, {ks}",
            "cmp {c}, {end}",
            "bne 21b",
            "b 24f",
        )
    };
}

/// The rbf loop of a wide run: w = base + norm_scale ‖z‖² + x'z (16
/// floats), 2^-w ([`exp2`] step for step; out of range 1 for w < 0, else
/// 0, NaN included), c'k and the sums.
macro_rules! wide_rbf_body {
    () => {
        concat!(
            lines!(
                "21:",
                "vldmia {n}!, {{s24}}",
                "vmov.f32 s23, s21",
                "vmla.f32 s23, s22, s24",
            ),
            wide_dot8!("s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7"),
            wide_dot8!("s8", "s9", "s10", "s11", "s12", "s13", "s14", "s15"),
            lines!(
                "add {z}, {z}, {adj}",
                "vldmia {kc}, {{s24-s30}}",
                "vadd.f32 s31, s23, s24",
                "vmov {t}, s31",
                "sub {t}, {t}, #0x4B000000",
                "cmp {t}, #124",
                "bhi 23f",
                "vsub.f32 s31, s31, s24",
                "vsub.f32 s31, s31, s23",
            ),
            wide_exp2_tail!(),
            wide_point_end!(),
            lines!(
                "23:",
                "vcmp.f32 s23, #0",
                "vmrs APSR_nzcv, fpscr",
                "vmov.f32 s23, #1.0",
                "it pl",
                "vsubpl.f32 s23, s23, s23",
                "b 22b",
            ),
        )
    };
}

/// The Laplacian loop of a wide run (d = 16, exactly the row): L = ‖x' -
/// z‖₁ in feature order from |x'_0 - z_0|, then 2^-w for w = gamma log2(e)
/// (s22) times L without forming w: t = 2^23 + L·s22 is one `vmla` into
/// the block's second 2^23 (s31; the same two roundings as w = L·s22 and
/// then w + 2^23), the range test on bits(t) as [`exp2_nonneg`], and
/// (t - 2^23) - w as a subtraction and a `vmls` (again the same roundings).
/// Out of range: 0 (w >= 0, or +inf).
macro_rules! wide_l1_body {
    () => {
        concat!(
            lines!(
                "21:",
                "@ {n}: the Laplacian reads no norms",
                "vldmia {z}!, {{s24-s31}}",
                "vsub.f32 s24, s0, s24",
                "vabs.f32 s23, s24",
            ),
            l1_lane!("s23", "s1", "s25"),
            l1_lane!("s23", "s2", "s26"),
            l1_lane!("s23", "s3", "s27"),
            l1_lane!("s23", "s4", "s28"),
            l1_lane!("s23", "s5", "s29"),
            l1_lane!("s23", "s6", "s30"),
            l1_lane!("s23", "s7", "s31"),
            lines!("vldmia {z}!, {{s24-s31}}"),
            l1_lane!("s23", "s8", "s24"),
            l1_lane!("s23", "s9", "s25"),
            l1_lane!("s23", "s10", "s26"),
            l1_lane!("s23", "s11", "s27"),
            l1_lane!("s23", "s12", "s28"),
            l1_lane!("s23", "s13", "s29"),
            l1_lane!("s23", "s14", "s30"),
            l1_lane!("s23", "s15", "s31"),
            lines!(
                "vldmia {kc}, {{s24-s31}}",
                "vmla.f32 s31, s23, s22",
                "vmov {t}, s31",
                "cmp {t}, {adj}",
                "bhi 23f",
                "vsub.f32 s31, s31, s24",
                "vmls.f32 s31, s23, s22",
            ),
            wide_exp2_tail!(),
            wide_point_end!(),
            lines!(
                "23:",
                "vmov.f32 s23, #1.0",
                "vsub.f32 s23, s23, s23",
                "b 22b",
            ),
        )
    };
}

/// The Laplacian's wide setup: gamma log2(e) into s22, the bound of
/// [`exp2_nonneg`] into {adj}.
macro_rules! wide_l1_setup {
    () => {
        concat!(lines!("vldr s22, [{p}, #100]"), l1_limit!())
    };
}

/// One run (see [`super::run_rows_rust`], whose results it reproduces bit
/// for bit) of the `kernel` (any of the six): one
/// `asm!` block per kernel and variant, so a caller whose kernel is a
/// constant links only that kernel's blocks.
///
/// # Safety
/// As [`super::run_rows_rust`].
#[inline(always)]
#[allow(unsafe_code)]
pub(super) unsafe fn run<const CHUNKED: bool, const KR: usize>(
    st: &mut RunState,
    rows: RowPtrs,
    kernel: u32,
) {
    let st: *mut RunState = st;
    // Chunked runs of 2 chunks (d = 9..16; the Laplacian's d = 16 exactly,
    // its rows read with no single floats after the chunks) and k <= 4 go
    // wide: x' in 16 registers for the whole run.
    // SAFETY: `st` is the caller's, valid for reads.
    let wide = || CHUNKED && KR == 4 && unsafe { (*st).full == 2 && (*st).rest == 0 };
    match kernel {
        super::RBF if wide() => wide_block!(st, rows, "vldmia {p}, {{s21-s22}}", wide_rbf_body!()),
        super::LAPLACIAN if wide() => wide_block!(st, rows, wide_l1_setup!(), wide_l1_body!()),
        // SAFETY: `st` is the caller's, valid for reads.
        super::LAPLACIAN if !CHUNKED && unsafe { (*st).d_bytes } < 32 => match KR {
            4 => run_block!(
                st,
                rows,
                l1_exact_setup!(),
                laplacian_body!(l1_dot_exact!(), a_row4!())
            ),
            _ => run_block!(
                st,
                rows,
                l1_exact_setup!(),
                laplacian_body!(l1_dot_exact!(), a_row8!())
            ),
        },
        super::RBF => variants!(
            st,
            rows,
            rbf_body,
            register_setup,
            register_dot,
            chunked_dot
        ),
        super::POLYNOMIAL => variants!(
            st,
            rows,
            poly_body,
            register_setup,
            plain_register_dot,
            plain_chunked_dot
        ),
        super::LAPLACIAN => variants!(
            st,
            rows,
            laplacian_body,
            l1_register_setup,
            l1_register_dot,
            l1_limit,
            l1_chunked_dot
        ),
        super::LINEAR => variants!(
            st,
            rows,
            linear_body,
            register_setup,
            plain_register_dot,
            plain_chunked_dot
        ),
        super::COSINE => variants!(
            st,
            rows,
            cosine_body,
            register_setup,
            plain_register_dot,
            plain_chunked_dot
        ),
        _ => variants!(
            st,
            rows,
            sigmoid_body,
            register_setup,
            plain_register_dot,
            plain_chunked_dot
        ),
    }
}
