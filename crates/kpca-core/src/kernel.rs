//! Kernel functions with scikit-learn's definitions and parameter names.
//!
//! | id | kernel | k(x, z) |
//! |----|--------|---------|
//! | 0 | linear | x'z |
//! | 1 | polynomial | (gamma x'z + coef0)^degree |
//! | 2 | rbf | exp(-gamma ‖x - z‖²) |
//! | 3 | laplacian | exp(-gamma ‖x - z‖₁) |
//! | 4 | sigmoid | tanh(gamma x'z + coef0) (not positive definite) |
//! | 5 | cosine | x'z / (‖x‖ ‖z‖), 0 when either norm is 0 |
//!
//! On the device everything is f32, through [`crate::fastmath`] and `libm`; the
//! kernel values themselves are computed inside the projection (one code path).

use crate::error::Error;

/// Highest polynomial degree accepted (higher degrees overflow f32 for any useful input).
pub const MAX_DEGREE: u32 = 16;

/// The numeric kernel id stored in the model blob. Stable, never renumbered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u16)]
pub enum KernelId {
    /// x'z
    Linear = 0,
    /// (gamma x'z + coef0)^degree
    Polynomial = 1,
    /// exp(-gamma ‖x - z‖²)
    Rbf = 2,
    /// exp(-gamma ‖x - z‖₁)
    Laplacian = 3,
    /// tanh(gamma x'z + coef0)
    Sigmoid = 4,
    /// x'z / (‖x‖ ‖z‖)
    Cosine = 5,
}

/// Whether a model of kernel id `kernel` may be stored as a folded linear map
/// (the linear and cosine kernels: y is linear in x', or in x' / ‖x'‖).
pub(crate) fn folds_to_linear_map(kernel: u32) -> bool {
    kernel == KernelId::Linear as u32 || kernel == KernelId::Cosine as u32
}

impl TryFrom<u16> for KernelId {
    type Error = Error;
    fn try_from(v: u16) -> Result<Self, Error> {
        KernelId::from_u32(u32::from(v)).ok_or(Error::UnknownKernel)
    }
}

/// One flag for each kernel parameter: which a kernel uses
/// ([`KernelId::uses`]; the others are ignored, and stored as 0), or which of
/// those it uses are out of range ([`KernelId::invalid`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ParamSet {
    /// gamma (finite and > 0 when used).
    pub gamma: bool,
    /// degree (1..=[`MAX_DEGREE`] when used).
    pub degree: bool,
    /// coef0 (finite when used).
    pub coef0: bool,
}

impl ParamSet {
    /// Whether any flag is set.
    pub const fn any(self) -> bool {
        self.gamma || self.degree || self.coef0
    }

    /// Of the parameters in `self`, those whose value is out of range for a
    /// model: the rule of [`KernelId::invalid`].
    fn out_of_range(self, gamma: f32, degree: u32, coef0: f32) -> ParamSet {
        ParamSet {
            gamma: self.gamma && !(gamma.is_finite() && gamma > 0.0),
            degree: self.degree && !(1..=MAX_DEGREE).contains(&degree),
            coef0: self.coef0 && !coef0.is_finite(),
        }
    }
}

/// One row of the kernel vocabulary: everything the crates say about a kernel
/// id apart from its formula in code.
struct Row {
    id: KernelId,
    /// scikit-learn's name.
    name: &'static str,
    /// Other accepted spellings.
    aliases: &'static [&'static str],
    /// The C API's name (`KPCA_KERNEL_<NAME>`, `kpca_<name>_project`).
    c_name: &'static str,
    /// k(x, z), in ASCII.
    formula: &'static str,
    uses: ParamSet,
}

/// Shorthand for the table below.
const fn uses(gamma: bool, degree: bool, coef0: bool) -> ParamSet {
    ParamSet {
        gamma,
        degree,
        coef0,
    }
}

/// The kernel vocabulary, in id order (row i is id i): the one place that says
/// each kernel's names and which parameters it uses.
const TABLE: [Row; 6] = [
    Row {
        id: KernelId::Linear,
        name: "linear",
        aliases: &[],
        c_name: "linear",
        formula: "x'z",
        uses: uses(false, false, false),
    },
    Row {
        id: KernelId::Polynomial,
        name: "poly",
        aliases: &["polynomial"],
        c_name: "polynomial",
        formula: "(gamma x'z + coef0)^degree",
        uses: uses(true, true, true),
    },
    Row {
        id: KernelId::Rbf,
        name: "rbf",
        aliases: &[],
        c_name: "rbf",
        formula: "exp(-gamma ||x - z||^2)",
        uses: uses(true, false, false),
    },
    Row {
        id: KernelId::Laplacian,
        name: "laplacian",
        aliases: &[],
        c_name: "laplacian",
        formula: "exp(-gamma ||x - z||_1)",
        uses: uses(true, false, false),
    },
    Row {
        id: KernelId::Sigmoid,
        name: "sigmoid",
        aliases: &[],
        c_name: "sigmoid",
        formula: "tanh(gamma x'z + coef0)",
        uses: uses(true, false, true),
    },
    Row {
        id: KernelId::Cosine,
        name: "cosine",
        aliases: &[],
        c_name: "cosine",
        formula: "x'z / (||x|| ||z||)",
        uses: uses(false, false, false),
    },
];

impl KernelId {
    /// Every kernel, in id order.
    pub const ALL: [KernelId; 6] = [
        KernelId::Linear,
        KernelId::Polynomial,
        KernelId::Rbf,
        KernelId::Laplacian,
        KernelId::Sigmoid,
        KernelId::Cosine,
    ];

    /// This kernel's row of the vocabulary.
    const fn row(self) -> &'static Row {
        match self {
            KernelId::Linear => &TABLE[0],
            KernelId::Polynomial => &TABLE[1],
            KernelId::Rbf => &TABLE[2],
            KernelId::Laplacian => &TABLE[3],
            KernelId::Sigmoid => &TABLE[4],
            KernelId::Cosine => &TABLE[5],
        }
    }

    /// The kernel with this stored id, if there is one.
    pub fn from_u32(id: u32) -> Option<KernelId> {
        // `ALL` is in id order (entry i is id i).
        KernelId::ALL.get(usize::try_from(id).ok()?).copied()
    }

    /// The kernel with this scikit-learn name or accepted alias (`"poly"` or
    /// `"polynomial"`, ...); case-sensitive, as scikit-learn.
    pub fn from_name(name: &str) -> Option<KernelId> {
        TABLE
            .iter()
            .find(|r| r.name == name || r.aliases.contains(&name))
            .map(|r| r.id)
    }

    /// scikit-learn's name for the kernel (`"linear"`, `"poly"`, `"rbf"`, ...).
    pub const fn name(self) -> &'static str {
        self.row().name
    }

    /// The other spellings [`KernelId::from_name`] accepts (`["polynomial"]`
    /// for `poly`).
    pub const fn aliases(self) -> &'static [&'static str] {
        self.row().aliases
    }

    /// The kernel's name in the C API, in lower case: `KPCA_KERNEL_<NAME>`
    /// and the single-kernel entry points `kpca_<name>_project` and the
    /// others (`"polynomial"` where scikit-learn says `"poly"`).
    pub const fn c_name(self) -> &'static str {
        self.row().c_name
    }

    /// k(x, z) in ASCII, for help texts (`"exp(-gamma ||x - z||^2)"`).
    pub const fn formula(self) -> &'static str {
        self.row().formula
    }

    /// Which of gamma, degree and coef0 the kernel uses.
    pub const fn uses(self) -> ParamSet {
        // Each arm is the table's flags read at compile time, so a firmware
        // that checks parameters links three flags per kernel, not the
        // table's names (the rows' strings stay on the host).
        match self {
            KernelId::Linear => const { TABLE[0].uses },
            KernelId::Polynomial => const { TABLE[1].uses },
            KernelId::Rbf => const { TABLE[2].uses },
            KernelId::Laplacian => const { TABLE[3].uses },
            KernelId::Sigmoid => const { TABLE[4].uses },
            KernelId::Cosine => const { TABLE[5].uses },
        }
    }

    /// Which of the parameters this kernel uses are out of range for a
    /// model (gamma not finite or not > 0, degree outside 1..=[`MAX_DEGREE`],
    /// coef0 not finite): the one rule behind [`Error::BadKernelParameter`],
    /// also read by the host to word its messages. None set: the kernel may
    /// be stored with these fields.
    pub fn invalid(self, gamma: f32, degree: u32, coef0: f32) -> ParamSet {
        self.uses().out_of_range(gamma, degree, coef0)
    }
}

/// A kernel with its parameters (f32, as stored on the device).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kernel {
    /// x'z
    Linear,
    /// (gamma x'z + coef0)^degree
    Polynomial {
        /// Scale of the inner product (> 0).
        gamma: f32,
        /// Exponent, 1..=[`MAX_DEGREE`].
        degree: u32,
        /// Additive constant.
        coef0: f32,
    },
    /// exp(-gamma ‖x - z‖²)
    Rbf {
        /// Inverse length scale squared (> 0).
        gamma: f32,
    },
    /// exp(-gamma ‖x - z‖₁)
    Laplacian {
        /// Inverse length scale (> 0).
        gamma: f32,
    },
    /// tanh(gamma x'z + coef0)
    Sigmoid {
        /// Scale of the inner product (> 0).
        gamma: f32,
        /// Additive constant.
        coef0: f32,
    },
    /// x'z / (‖x‖ ‖z‖)
    Cosine,
}

impl Kernel {
    /// The stable id of this kernel.
    pub const fn id(&self) -> KernelId {
        match self {
            Kernel::Linear => KernelId::Linear,
            Kernel::Polynomial { .. } => KernelId::Polynomial,
            Kernel::Rbf { .. } => KernelId::Rbf,
            Kernel::Laplacian { .. } => KernelId::Laplacian,
            Kernel::Sigmoid { .. } => KernelId::Sigmoid,
            Kernel::Cosine => KernelId::Cosine,
        }
    }

    /// Builds a kernel from its id and the stored parameter fields, checking them.
    /// Parameters a kernel does not use are ignored.
    pub fn from_parts(id: KernelId, gamma: f32, degree: u32, coef0: f32) -> Result<Kernel, Error> {
        let (gamma, degree, coef0) = check_params(id as u32, gamma, degree, coef0)?;
        Ok(Kernel::unchecked(id, gamma, degree, coef0))
    }

    /// The kernel of this id with these parameter fields, not checked (the
    /// fields the kernel does not use are dropped): [`Kernel::validate`], or
    /// the model's check when the kernel goes into one
    /// ([`crate::ModelRef::from_parts`]), says whether they are valid.
    pub const fn unchecked(id: KernelId, gamma: f32, degree: u32, coef0: f32) -> Kernel {
        match id {
            KernelId::Linear => Kernel::Linear,
            KernelId::Polynomial => Kernel::Polynomial {
                gamma,
                degree,
                coef0,
            },
            KernelId::Rbf => Kernel::Rbf { gamma },
            KernelId::Laplacian => Kernel::Laplacian { gamma },
            KernelId::Sigmoid => Kernel::Sigmoid { gamma, coef0 },
            KernelId::Cosine => Kernel::Cosine,
        }
    }

    /// Checks the parameters of an already-built kernel.
    pub fn validate(&self) -> Result<(), Error> {
        let (gamma, degree, coef0) = self.params();
        Kernel::from_parts(self.id(), gamma, degree, coef0).map(|_| ())
    }

    /// (gamma, degree, coef0) as stored in the blob; unused fields are 0.
    pub const fn params(&self) -> (f32, u32, f32) {
        match *self {
            Kernel::Linear | Kernel::Cosine => (0.0, 0, 0.0),
            Kernel::Polynomial {
                gamma,
                degree,
                coef0,
            } => (gamma, degree, coef0),
            Kernel::Rbf { gamma } | Kernel::Laplacian { gamma } => (gamma, 0, 0.0),
            Kernel::Sigmoid { gamma, coef0 } => (gamma, 0, coef0),
        }
    }

    /// The kernel of stored fields that [`check_params`] accepted (an
    /// unknown id, which a validated model cannot hold, reads as linear).
    pub(crate) fn from_stored(id: u32, gamma: f32, degree: u32, coef0: f32) -> Kernel {
        match KernelId::from_u32(id) {
            Some(id) => Kernel::unchecked(id, gamma, degree, coef0),
            None => Kernel::Linear,
        }
    }
}

/// Checks a stored kernel id and the parameters that kernel uses (gamma finite
/// and > 0; coef0 finite; degree 1..=[`MAX_DEGREE`]) and returns
/// (gamma, degree, coef0) with the unused ones 0, as [`Kernel::params`].
/// Errors: [`Error::UnknownKernel`], [`Error::BadKernelParameter`].
pub(crate) fn check_params(
    id: u32,
    gamma: f32,
    degree: u32,
    coef0: f32,
) -> Result<(f32, u32, f32), Error> {
    let Some(kernel) = KernelId::from_u32(id) else {
        return Err(Error::UnknownKernel);
    };
    let uses = kernel.uses();
    if uses.out_of_range(gamma, degree, coef0).any() {
        return Err(Error::BadKernelParameter);
    }
    let ParamSet {
        gamma: g,
        degree: dg,
        coef0: c0,
    } = uses;
    Ok((
        if g { gamma } else { 0.0 },
        if dg { degree } else { 0 },
        if c0 { coef0 } else { 0.0 },
    ))
}

/// The kernel value from x'z (the L1 distance ‖x - z‖₁ for the Laplacian
/// kernel), ‖z‖² and ‖x‖², for a kernel id and its stored parameters: the one
/// formula of each kernel, shared by the projection and the on-device fit
/// ([`crate::learn`]). One exponential serves the RBF, Laplacian and sigmoid
/// kernels (tanh as in [`crate::fastmath::tanh`]); an unknown id reads as
/// cosine, which a validated model cannot hold.
#[inline(always)]
pub(crate) fn value_from(
    kernel: u32,
    gamma: f32,
    degree: u32,
    coef0: f32,
    dot: f32,
    zn: f32,
    sq_norm: f32,
) -> f32 {
    const POLYNOMIAL: u32 = KernelId::Polynomial as u32;
    const RBF: u32 = KernelId::Rbf as u32;
    const LAPLACIAN: u32 = KernelId::Laplacian as u32;
    const SIGMOID: u32 = KernelId::Sigmoid as u32;
    const LINEAR: u32 = KernelId::Linear as u32;
    let u = gamma * dot + coef0;
    let t = match kernel {
        LINEAR => return dot,
        POLYNOMIAL => return powi(u, degree),
        RBF => gamma * (sq_norm + zn - 2.0 * dot),
        LAPLACIAN => gamma * dot,
        SIGMOID => 2.0 * libm::fabsf(u),
        _ => return cosine(dot, sq_norm, zn),
    };
    let e = crate::fastmath::exp_neg(t);
    if kernel == SIGMOID {
        crate::fastmath::tanh_from(u, e)
    } else {
        e
    }
}

/// k(x, z) of two vectors of equal length with squared norms `xn` and `zn`,
/// by [`value_from`] (the dot product, or the L1 distance for the Laplacian
/// kernel, summed in order).
pub(crate) fn pair_value(kernel: &Kernel, x: &[f32], z: &[f32], xn: f32, zn: f32) -> f32 {
    let id = kernel.id() as u32;
    let (gamma, degree, coef0) = kernel.params();
    let mut acc = 0.0f32;
    if id == KernelId::Laplacian as u32 {
        for (a, b) in x.iter().zip(z) {
            acc += libm::fabsf(a - b);
        }
    } else {
        for (a, b) in x.iter().zip(z) {
            acc += a * b;
        }
    }
    value_from(id, gamma, degree, coef0, acc, zn, xn)
}

/// x'z / sqrt(‖x‖² ‖z‖²), 0 when either squared norm is 0.
#[inline]
pub(crate) fn cosine(dot: f32, sq_norm_x: f32, sq_norm_z: f32) -> f32 {
    let denom = crate::fastmath::sqrt(sq_norm_x) * crate::fastmath::sqrt(sq_norm_z);
    if denom > 0.0 {
        dot / denom
    } else {
        0.0
    }
}

/// base^exp by repeated squaring (exact for the integer exponent, no libm call).
#[inline]
pub(crate) fn powi(base: f32, exp: u32) -> f32 {
    let mut result = 1.0f32;
    let mut b = base;
    let mut e = exp;
    while e > 0 {
        crate::project::keep_rolled();
        if e & 1 == 1 {
            result *= b;
        }
        b *= b;
        e >>= 1;
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f64_kernel(k: &Kernel, x: &[f64], z: &[f64]) -> f64 {
        let dot: f64 = x.iter().zip(z).map(|(a, b)| a * b).sum();
        match *k {
            Kernel::Linear => dot,
            Kernel::Polynomial {
                gamma,
                degree,
                coef0,
            } => (gamma as f64 * dot + coef0 as f64).powi(degree as i32),
            Kernel::Rbf { gamma } => {
                (-(gamma as f64) * x.iter().zip(z).map(|(a, b)| (a - b).powi(2)).sum::<f64>()).exp()
            }
            Kernel::Laplacian { gamma } => {
                (-(gamma as f64) * x.iter().zip(z).map(|(a, b)| (a - b).abs()).sum::<f64>()).exp()
            }
            Kernel::Sigmoid { gamma, coef0 } => (gamma as f64 * dot + coef0 as f64).tanh(),
            Kernel::Cosine => {
                let nx = x.iter().map(|a| a * a).sum::<f64>().sqrt();
                let nz = z.iter().map(|a| a * a).sum::<f64>().sqrt();
                dot / (nx * nz)
            }
        }
    }

    /// k(x, z) as the device computes it: the projection of x through a
    /// one-point model whose only stored point is z, with A = 1 and b = 0.
    fn device_kernel(kernel: Kernel, x: &[f32], z: &[f32]) -> f32 {
        let norm = [z.iter().map(|v| v * v).sum::<f32>()];
        let view = crate::ModelRef::from_parts(crate::ModelParts {
            kernel,
            dim: z.len(),
            n_components: 1,
            standardize: None,
            points: z,
            point_sq_norms: &norm,
            a: &[1.0],
            b: &[0.0],
            c: &[0.0],
            s: 0.0,
            eigenvalues: &[1.0],
            threshold: 0.0,
            fit: crate::FitInfo::NOT_RECORDED,
            linear_map: false,
        })
        .unwrap();
        let mut y = [0.0f32];
        view.project(x, &mut y).unwrap();
        y[0]
    }

    #[test]
    fn f32_kernels_match_f64_definitions() {
        const KERNEL_REL_TOL: f64 = 2e-6;
        let kernels = [
            Kernel::Linear,
            Kernel::Polynomial {
                gamma: 0.5,
                degree: 3,
                coef0: 1.0,
            },
            Kernel::Rbf { gamma: 0.3 },
            Kernel::Laplacian { gamma: 0.2 },
            Kernel::Sigmoid {
                gamma: 0.1,
                coef0: 0.5,
            },
            Kernel::Cosine,
        ];
        let x = [0.5f32, -1.25, 2.0, 0.125];
        let z = [1.5f32, 0.75, -0.5, 1.0];
        let x64: std::vec::Vec<f64> = x.iter().map(|&v| v as f64).collect();
        let z64: std::vec::Vec<f64> = z.iter().map(|&v| v as f64).collect();
        for k in kernels {
            k.validate().unwrap();
            let got = device_kernel(k, &x, &z) as f64;
            let want = f64_kernel(&k, &x64, &z64);
            assert!(
                (got - want).abs() <= KERNEL_REL_TOL * want.abs().max(1.0),
                "{k:?}: {got} vs {want}"
            );
        }
    }

    #[test]
    fn the_vocabulary_table_is_in_id_order_and_names_each_kernel_once() {
        for (i, (k, row)) in KernelId::ALL.iter().zip(&TABLE).enumerate() {
            assert_eq!((*k as usize, row.id as usize), (i, i));
            assert_eq!(KernelId::from_u32(i as u32), Some(*k));
            assert_eq!(KernelId::try_from(i as u16), Ok(*k));
            assert_eq!(KernelId::from_name(k.name()), Some(*k));
            for alias in k.aliases() {
                assert_eq!(KernelId::from_name(alias), Some(*k));
            }
            assert!(k.c_name().bytes().all(|b| b.is_ascii_lowercase()));
            // What the table says is used is what the stored kernel keeps.
            let (g, d, c) = Kernel::unchecked(*k, 2.0, 3, 4.0).params();
            let uses = k.uses();
            assert_eq!(
                (g != 0.0, d != 0, c != 0.0),
                (uses.gamma, uses.degree, uses.coef0)
            );
        }
        let names = KernelId::ALL
            .iter()
            .flat_map(|k| core::iter::once(k.name()).chain(k.aliases().iter().copied()));
        let all: std::vec::Vec<&str> = names.collect();
        for (i, a) in all.iter().enumerate() {
            assert!(!all[i + 1..].contains(a), "{a} names two kernels");
        }
        assert_eq!(KernelId::from_name("Polynomial"), None);
        assert_eq!(KernelId::from_u32(6), None);
    }

    #[test]
    fn parameters_are_checked() {
        use KernelId::*;
        assert_eq!(
            Kernel::from_parts(Rbf, 0.0, 0, 0.0),
            Err(Error::BadKernelParameter)
        );
        assert_eq!(
            Kernel::from_parts(Rbf, f32::NAN, 0, 0.0),
            Err(Error::BadKernelParameter)
        );
        assert_eq!(
            Kernel::from_parts(Polynomial, 1.0, 0, 0.0),
            Err(Error::BadKernelParameter)
        );
        assert_eq!(
            Kernel::from_parts(Polynomial, 1.0, MAX_DEGREE + 1, 0.0),
            Err(Error::BadKernelParameter)
        );
        assert_eq!(
            Kernel::from_parts(Sigmoid, 1.0, 0, f32::INFINITY),
            Err(Error::BadKernelParameter)
        );
        assert!(Kernel::from_parts(Linear, f32::NAN, 0, f32::NAN).is_ok());
        let bad = Polynomial.invalid(0.0, 1, f32::NAN);
        assert_eq!((bad.gamma, bad.degree, bad.coef0), (true, false, true));
        assert!(!Rbf.invalid(1.0, 0, f32::NAN).any());
        assert_eq!(KernelId::try_from(6), Err(Error::UnknownKernel));
        assert_eq!(powi(2.0, 10), 1024.0);
        assert_eq!(cosine(1.0, 0.0, 4.0), 0.0);
    }
}
