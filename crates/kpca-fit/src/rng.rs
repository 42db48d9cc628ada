//! A small seeded random number generator (xoshiro256**, seeded through
//! SplitMix64) implementing `rand_core`'s traits, and uniform sampling of landmark
//! indices without replacement.

use crate::error::FitError;
use rand_core::{Infallible, Rng, SeedableRng, TryRng};
use std::vec::Vec;

/// xoshiro256** (Blackman and Vigna): 256 bits of state, period 2^256 - 1, fast and
/// statistically strong; not for cryptography. Deterministic for a given seed on
/// every platform, so a Nyström fit with [`crate::Nystrom::random`] is
/// reproducible.
///
/// ```
/// use kpca_fit::SeededRng;
/// use rand_core::{Rng, SeedableRng};
/// let mut a = SeededRng::seed_from_u64(7);
/// let mut b = SeededRng::seed_from_u64(7);
/// assert_eq!(a.next_u64(), b.next_u64());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeededRng {
    s: [u64; 4],
}

/// One SplitMix64 step: advances `state` and returns the next output.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl SeededRng {
    fn step(&mut self) -> u64 {
        let [s0, s1, s2, s3] = self.s;
        let result = s1.wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s1 << 17;
        let n2 = s2 ^ s0;
        let n3 = s3 ^ s1;
        let n1 = s1 ^ n2;
        let n0 = s0 ^ n3;
        self.s = [n0, n1, n2 ^ t, n3.rotate_left(45)];
        result
    }

    /// A uniform f64 in [0, 1) with 53 random bits.
    pub(crate) fn next_f64(&mut self) -> f64 {
        (self.step() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

impl TryRng for SeededRng {
    type Error = Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok((self.step() >> 32) as u32)
    }
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        Ok(self.step())
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        for chunk in dst.chunks_mut(8) {
            let bytes = self.step().to_le_bytes();
            for (d, s) in chunk.iter_mut().zip(bytes) {
                *d = s;
            }
        }
        Ok(())
    }
}

impl SeedableRng for SeededRng {
    type Seed = [u8; 32];

    /// Uses the seed as the state; an all-zero seed (the one state xoshiro cannot
    /// leave) is replaced by the SplitMix64 expansion of 0.
    fn from_seed(seed: [u8; 32]) -> Self {
        let mut s = [0u64; 4];
        for (word, bytes) in s.iter_mut().zip(seed.chunks_exact(8)) {
            let mut b = [0u8; 8];
            b.copy_from_slice(bytes);
            *word = u64::from_le_bytes(b);
        }
        if s == [0; 4] {
            return SeededRng::seed_from_u64(0);
        }
        SeededRng { s }
    }

    /// Expands the seed with SplitMix64 (the seeding its authors recommend).
    fn seed_from_u64(seed: u64) -> Self {
        let mut state = seed;
        let s = [
            splitmix64(&mut state),
            splitmix64(&mut state),
            splitmix64(&mut state),
            splitmix64(&mut state),
        ];
        SeededRng { s }
    }
}

/// A uniform integer in `0..bound` (`bound > 0`) by Lemire's multiply-and-reject
/// method, without modulo bias.
fn below<R: Rng + ?Sized>(rng: &mut R, bound: u64) -> u64 {
    let threshold = bound.wrapping_neg() % bound;
    loop {
        let product = u128::from(rng.next_u64()) * u128::from(bound);
        if (product as u64) >= threshold {
            return (product >> 64) as u64;
        }
    }
}

/// Draws `m` distinct indices from `0..n` uniformly at random (every m-subset
/// equally likely) with a partial Fisher-Yates shuffle, and returns them sorted
/// ascending. Use it with your own generator and pass the result to
/// [`crate::Nystrom::indices`]:
///
/// ```
/// use kpca_fit::{sample_landmarks, SeededRng};
/// use rand_core::SeedableRng;
/// let mut rng = SeededRng::seed_from_u64(42);
/// let idx = sample_landmarks(&mut rng, 100, 10)?;
/// assert_eq!(idx.len(), 10);
/// assert!(idx.windows(2).all(|w| w[0] < w[1]));
/// # Ok::<(), kpca_fit::FitError>(())
/// ```
///
/// [`FitError::BadLandmarkCount`] when `m > n` or `m == 0`.
pub fn sample_landmarks<R: Rng + ?Sized>(
    rng: &mut R,
    n: usize,
    m: usize,
) -> Result<Vec<usize>, FitError> {
    if m > n || m == 0 {
        return Err(FitError::BadLandmarkCount {
            m,
            n_points: Some(n),
            n_components: None,
        });
    }
    // A partial Fisher-Yates shuffle of 0..n in which only the moved
    // positions are stored: O(m) memory whatever n (a streamed fit draws its
    // landmarks from 10^7 rows and more), the same draws as the full shuffle.
    let mut moved: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
    let mut chosen = Vec::with_capacity(m);
    for i in 0..m {
        let remaining = (n - i) as u64;
        let j = i + below(rng, remaining) as usize;
        let at_j = moved.get(&j).copied().unwrap_or(j);
        let at_i = moved.get(&i).copied().unwrap_or(i);
        moved.insert(j, at_i);
        chosen.push(at_j);
    }
    chosen.sort_unstable();
    Ok(chosen)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec;

    #[test]
    fn xoshiro_reference_output() {
        // State 1, 2, 3, 4: the first outputs of the reference C implementation.
        let mut r = SeededRng { s: [1, 2, 3, 4] };
        let first: Vec<u64> = (0..3).map(|_| r.step()).collect();
        assert_eq!(first, vec![11520, 0, 1509978240]);
    }

    /// The sparse shuffle against the whole-pool shuffle it replaces.
    #[test]
    fn sparse_sampling_draws_what_the_whole_pool_shuffle_draws() {
        for (n, m, seed) in [(10, 10, 1), (100, 7, 2), (5000, 300, 3), (1, 1, 4)] {
            let mut rng = SeededRng::seed_from_u64(seed);
            let mut pool: Vec<usize> = (0..n).collect();
            for i in 0..m {
                let j = i + below(&mut rng, (n - i) as u64) as usize;
                pool.swap(i, j);
            }
            pool.truncate(m);
            pool.sort_unstable();
            let mut rng = SeededRng::seed_from_u64(seed);
            assert_eq!(sample_landmarks(&mut rng, n, m).expect("m <= n"), pool);
        }
    }

    #[test]
    fn sampling_is_uniform_enough_and_distinct() {
        let mut rng = SeededRng::seed_from_u64(1);
        let mut counts = [0usize; 10];
        for _ in 0..2000 {
            let idx = sample_landmarks(&mut rng, 10, 3).expect("3 of 10");
            assert_eq!(idx.len(), 3);
            assert!(idx.windows(2).all(|w| w[0] < w[1]));
            for i in idx {
                counts[i] += 1;
            }
        }
        // Each index is drawn with probability 3/10: 600 expected of 2000.
        assert!(
            counts.iter().all(|&c| (480..=720).contains(&c)),
            "{counts:?}"
        );
    }
}
