//! Instruction-set levels and their runtime detection (once per process).

use core::fmt;
use std::sync::OnceLock;

use crate::simd::Kern;

/// An instruction-set level the kernels are compiled for. The best available one is picked at run time; tests and
/// benchmarks can force any available level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Isa {
    /// Portable code, no SIMD intrinsics.
    Scalar,
    /// x86-64-v3: AVX2, FMA, BMI2 (pulp's `V3`).
    V3,
    /// x86-64-v4: AVX-512 F/BW/DQ/VL (pulp's `V4`).
    V4,
    /// x86-64-v4 plus AVX-512 VBMI (byte permutes across a whole register: Ice Lake, Zen 4 and later).
    V4Vbmi,
}

impl Isa {
    /// Every level, from the most portable to the widest.
    pub const ALL: [Isa; 4] = [Isa::Scalar, Isa::V3, Isa::V4, Isa::V4Vbmi];

    /// Whether this CPU runs this level.
    pub fn is_available(self) -> bool {
        Level::of(self).is_some()
    }

    /// The level used when none is forced: the widest available.
    pub fn best() -> Isa {
        best().isa()
    }

    /// The levels this CPU runs, from the most portable to the widest.
    pub fn available() -> Vec<Isa> {
        Isa::ALL.into_iter().filter(|isa| isa.is_available()).collect()
    }

    /// Short lowercase name: `scalar`, `v3`, `v4`, `v4-vbmi`.
    pub fn name(self) -> &'static str {
        match self {
            Isa::Scalar => "scalar",
            Isa::V3 => "v3",
            Isa::V4 => "v4",
            Isa::V4Vbmi => "v4-vbmi",
        }
    }
}

impl fmt::Display for Isa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Isa::Scalar => "scalar",
            Isa::V3 => "x86-64-v3 (AVX2)",
            Isa::V4 => "x86-64-v4 (AVX-512)",
            Isa::V4Vbmi => "x86-64-v4 + VBMI (AVX-512)",
        })
    }
}

/// A detected level together with pulp's proof token.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Level {
    Scalar,
    #[cfg(target_arch = "x86_64")]
    V3(pulp::x86::V3),
    #[cfg(target_arch = "x86_64")]
    V4(pulp::x86::V4),
    #[cfg(target_arch = "x86_64")]
    V4Vbmi(crate::simd::V4Vbmi),
}

impl Level {
    /// The token for `isa`, if this CPU has it.
    pub(crate) fn of(isa: Isa) -> Option<Level> {
        match isa {
            Isa::Scalar => Some(Level::Scalar),
            #[cfg(target_arch = "x86_64")]
            Isa::V3 => pulp::x86::V3::try_new().map(Level::V3),
            #[cfg(target_arch = "x86_64")]
            Isa::V4 => pulp::x86::V4::try_new().map(Level::V4),
            #[cfg(target_arch = "x86_64")]
            Isa::V4Vbmi => crate::simd::V4Vbmi::try_new().map(Level::V4Vbmi),
            #[cfg(not(target_arch = "x86_64"))]
            _ => None,
        }
    }

    pub(crate) fn isa(self) -> Isa {
        match self {
            Level::Scalar => Isa::Scalar,
            #[cfg(target_arch = "x86_64")]
            Level::V3(_) => Isa::V3,
            #[cfg(target_arch = "x86_64")]
            Level::V4(_) => Isa::V4,
            #[cfg(target_arch = "x86_64")]
            Level::V4Vbmi(_) => Isa::V4Vbmi,
        }
    }

    /// Runs `job` with the level's token as the [`Kern`] implementation: SIMD row kernels then run in out-of-line
    /// functions compiled for the level (`Kern::far`).
    #[inline(always)]
    pub(crate) fn dispatch<J: Job>(self, job: J) -> J::Output {
        match self {
            Level::Scalar => job.run(pulp::Scalar::new()),
            #[cfg(target_arch = "x86_64")]
            Level::V3(simd) => job.run(simd),
            #[cfg(target_arch = "x86_64")]
            Level::V4(simd) => job.run(simd),
            #[cfg(target_arch = "x86_64")]
            Level::V4Vbmi(simd) => job.run(simd),
        }
    }
}

/// Work generic over the instruction-set level.
pub(crate) trait Job {
    type Output;
    fn run<K: Kern>(self, k: K) -> Self::Output;
}

#[cold]
#[inline(never)]
fn detect() -> Level {
    [Isa::V4Vbmi, Isa::V4, Isa::V3].into_iter().find_map(Level::of).unwrap_or(Level::Scalar)
}

/// The widest level this CPU runs, detected once.
#[inline]
pub(crate) fn best() -> Level {
    static BEST: OnceLock<Level> = OnceLock::new();
    *BEST.get_or_init(detect)
}
