//! The generator's random source: a small, inlinable PRNG seeded from proptest's `TestRng`.
//!
//! A draw makes dozens of random choices; through `TestRng` (an enum over four algorithms, behind
//! `rand`'s traits) they cost a tenth of the draw. Each draw takes one `u64` from the trial's
//! `TestRng` and makes its choices with [`Dice`] (wyrand), so draws stay reproducible from the
//! trial's seed. Ranges never panic: an empty range yields its start, so a generator bug cannot
//! crash a trial.

use proptest::prelude::Rng;
use proptest::test_runner::TestRng;

/// wyrand: one multiply per `u64`.
#[derive(Debug, Clone)]
pub(crate) struct Dice(u64);

impl Dice {
    #[cfg(test)]
    pub(crate) fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// Seeded with one value from `rng`.
    pub(crate) fn from_rng(rng: &mut TestRng) -> Self {
        Self(rng.next_u64())
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0xa076_1d64_78bd_642f);
        let t = u128::from(self.0) * u128::from(self.0 ^ 0xe703_7ed1_a0b4_28db);
        ((t >> 64) as u64) ^ (t as u64)
    }

    /// Uniform in `0..n` (`0` when `n` is `0`), by multiply-shift.
    fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    pub(crate) fn random_range<T, R: Pick<T>>(&mut self, range: R) -> T {
        range.pick(self)
    }

    pub(crate) fn random<T: Sample>(&mut self) -> T {
        T::sample(self)
    }

    pub(crate) fn random_ratio(&mut self, numerator: u32, denominator: u32) -> bool {
        self.below(u64::from(denominator)) < u64::from(numerator)
    }
}

/// A range a value can be picked from.
pub(crate) trait Pick<T> {
    fn pick(self, dice: &mut Dice) -> T;
}

macro_rules! pick_integers {
    ($($t:ty),*) => {$(
        impl Pick<$t> for std::ops::Range<$t> {
            fn pick(self, dice: &mut Dice) -> $t {
                if self.start >= self.end {
                    return self.start;
                }
                let span = (i128::from(self.end) - i128::from(self.start)) as u64;
                (i128::from(self.start) + i128::from(dice.below(span))) as $t
            }
        }
        impl Pick<$t> for std::ops::RangeInclusive<$t> {
            fn pick(self, dice: &mut Dice) -> $t {
                let (start, end) = self.into_inner();
                if start > end {
                    return start;
                }
                let span = i128::from(end) - i128::from(start) + 1;
                let offset = if span > i128::from(u64::MAX) { dice.next_u64() } else { dice.below(span as u64) };
                (i128::from(start) + i128::from(offset)) as $t
            }
        }
    )*};
}

pick_integers!(u8, i32, u32, i64, u64);

impl Pick<usize> for std::ops::Range<usize> {
    fn pick(self, dice: &mut Dice) -> usize {
        (self.start as u64..self.end as u64).pick(dice) as usize
    }
}

impl Pick<usize> for std::ops::RangeInclusive<usize> {
    fn pick(self, dice: &mut Dice) -> usize {
        let (start, end) = self.into_inner();
        (start as u64..=end as u64).pick(dice) as usize
    }
}

/// A type drawn without a range.
pub(crate) trait Sample {
    fn sample(dice: &mut Dice) -> Self;
}

impl Sample for bool {
    fn sample(dice: &mut Dice) -> Self {
        dice.next_u64() >> 63 == 1
    }
}

impl Sample for f64 {
    /// Uniform in `[0, 1)`.
    fn sample(dice: &mut Dice) -> Self {
        (dice.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_stay_inside_and_empty_ones_do_not_panic() {
        let mut dice = Dice::new(7);
        for _ in 0..1000 {
            let x: i64 = dice.random_range(-3i64..=3);
            assert!((-3..=3).contains(&x));
            let y: usize = dice.random_range(2usize..5);
            assert!((2..5).contains(&y));
            let f: f64 = dice.random();
            assert!((0.0..1.0).contains(&f));
        }
        assert_eq!(dice.random_range(5usize..5), 5);
        let (high, low) = (5u64, 4u64);
        assert_eq!(dice.random_range(high..=low), 5);
        let full: u64 = dice.random_range(0u64..=u64::MAX);
        let _ = full;
    }
}
