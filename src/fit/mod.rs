//! Host-side fit (feature `std`): full and Nyström kernel PCA in f64, folded into
//! the device model of the core.
