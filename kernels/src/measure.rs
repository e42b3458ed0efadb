//! Store kinds chosen by measuring. Just above the streaming threshold, which store kind wins depends on how much
//! of the last-level cache the machine leaves a walk at the time — other tenants of a VM's cache, the other cores'
//! work — which nothing the library can read tells apart: the same walk on the same kind of VM ran faster streamed
//! one day and with regular stores another. There a [`Program`](crate::Program) times its own calls with each kind
//! and keeps the faster (`Strategy::store_choice` says where; everywhere else the rule alone decides).
//!
//! Every [`STORE_PROBE_PERIOD`] calls of a program (counted apart on one thread and split across threads), from
//! call [`STORE_PROBE_START`] on, [`STORE_PROBE_RUN`] calls use the rule's kind and as many the other kind; the best
//! time of the second half of each run is kept (the first half settles the caches into what the kind leaves them),
//! and the rest of the period and the start of the next use the other kind only if its best was lower by
//! [`STORE_PROBE_MARGIN_PERCENT`], the rule's kind otherwise. The calls before the first probe use the rule's kind:
//! a program's first calls (often colder than the rest: pool threads waking, caches filling) are not measured. A
//! change of phase is followed within a period. Results do not depend on the kind: only the time does.
//!
//! FFTW's planner ("measure") and ATLAS's tuning choose code the same way, once; here the choice is renewed,
//! because the conditions it depends on change while a program lives.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Duration;

use crate::params::{STORE_PROBE_MARGIN_PERCENT, STORE_PROBE_PERIOD, STORE_PROBE_RUN, STORE_PROBE_START};

/// The store kind of one call, and whether its time is recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Pick {
    /// Non-temporal stores.
    pub(crate) stream: bool,
    /// The call is a probe whose time counts (see [`StoreProbe::record`]).
    pub(crate) timed: bool,
}

/// The measurements of one program: one slot for calls that run on the calling thread alone, one for calls split
/// across threads (whose best kind differs: their threshold does).
#[derive(Debug, Default)]
pub(crate) struct StoreProbe {
    slots: [Slot; 2],
}

/// The measurements of one thread count class.
#[derive(Debug, Default)]
struct Slot {
    /// Calls so far.
    calls: AtomicU64,
    /// The best time in nanoseconds of the last probe's timed calls with regular stores (`[0]`) and streamed
    /// (`[1]`): reset to `u64::MAX` when a probe starts, kept until the next one (the calls before it decide from
    /// them); 0 before the first probe (neither kind faster: the rule's).
    best: [AtomicU64; 2],
}

impl Clone for StoreProbe {
    /// A copy of a program measures afresh.
    fn clone(&self) -> StoreProbe {
        StoreProbe::default()
    }
}

impl StoreProbe {
    /// The store kind of the next call of a program whose rule says `rule`, on one thread or `split`.
    pub(crate) fn pick(&self, split: bool, rule: bool) -> Pick {
        let slot = &self.slots[usize::from(split)];
        let n = slot.calls.fetch_add(1, Relaxed) % STORE_PROBE_PERIOD;
        if n == STORE_PROBE_START {
            for best in &slot.best {
                best.store(u64::MAX, Relaxed);
            }
        }
        decide(n, rule, [slot.best[0].load(Relaxed), slot.best[1].load(Relaxed)])
    }

    /// The calls counted so far on one thread or `split`.
    #[cfg(feature = "selftest")]
    pub(crate) fn calls(&self, split: bool) -> u64 {
        self.slots[usize::from(split)].calls.load(Relaxed)
    }

    /// Records the time a call `pick`ed took (nothing unless it was timed). Calls that run at the same time may
    /// interleave their picks and records; a probe then measures a contended call, which costs at most a period's
    /// choice, never a result.
    pub(crate) fn record(&self, split: bool, pick: Pick, took: Duration) {
        if pick.timed {
            let ns = u64::try_from(took.as_nanos()).unwrap_or(u64::MAX);
            self.slots[usize::from(split)].best[usize::from(pick.stream)].fetch_min(ns, Relaxed);
        }
    }
}

/// The pick of call `n` of a period (`n < STORE_PROBE_PERIOD`) for a rule that says `rule`, given the best times
/// of the last probe (`[regular, streamed]`: this period's once its probe has run, the previous period's before).
fn decide(n: u64, rule: bool, best: [u64; 2]) -> Pick {
    let (start, run) = (STORE_PROBE_START, STORE_PROBE_RUN);
    if (start..start + 2 * run).contains(&n) {
        let k = n - start;
        return Pick { stream: rule ^ (k >= run), timed: k % run >= run / 2 };
    }
    let (mine, other) = (u128::from(best[usize::from(rule)]), u128::from(best[usize::from(!rule)]));
    let faster = other * 100 < mine * u128::from(100 - STORE_PROBE_MARGIN_PERCENT);
    Pick { stream: rule ^ faster, timed: false }
}

#[cfg(feature = "selftest")]
#[strider_kernels_macros::selftests]
mod tests {
    use super::*;

    const START: usize = STORE_PROBE_START as usize;
    const RUN: usize = STORE_PROBE_RUN as usize;
    /// The first call after the probes.
    const DECIDED: usize = START + 2 * RUN;

    /// The picks of a whole period for a rule that says `rule`, when each call of a kind takes `regular` or
    /// `streamed` ns.
    fn period(probe: &StoreProbe, split: bool, rule: bool, regular: u64, streamed: u64) -> Vec<Pick> {
        (0..STORE_PROBE_PERIOD)
            .map(|_| {
                let pick = probe.pick(split, rule);
                let ns = if pick.stream { streamed } else { regular };
                probe.record(split, pick, Duration::from_nanos(ns));
                pick
            })
            .collect()
    }

    #[test]
    fn a_period_probes_the_rule_then_the_other_kind_then_keeps_the_faster() {
        for rule in [false, true] {
            let probe = StoreProbe::default();
            let picks = period(&probe, false, rule, 1000, 500);
            // A program's first calls use the rule's kind, untimed.
            assert!(picks[..START].iter().all(|p| *p == Pick { stream: rule, timed: false }));
            for (k, pick) in picks[START..DECIDED].iter().enumerate() {
                assert_eq!(pick.stream, if k < RUN { rule } else { !rule }, "probe call {k}");
                assert_eq!(pick.timed, k % RUN >= RUN / 2, "probe call {k}: the first half of each run settles");
            }
            // Streamed was twice as fast: the rest of the period streams, untimed, and so does the start of the
            // next one.
            assert!(picks[DECIDED..].iter().all(|p| *p == Pick { stream: true, timed: false }));
            let next = period(&probe, false, rule, 1000, 500);
            assert!(next[..START].iter().all(|p| *p == Pick { stream: true, timed: false }));
        }
    }

    #[test]
    fn the_rule_keeps_its_kind_unless_the_other_wins_by_the_margin() {
        let rest = |regular: u64, streamed: u64, rule: bool| {
            let picks = period(&StoreProbe::default(), true, rule, regular, streamed);
            picks[DECIDED].stream
        };
        let m = STORE_PROBE_MARGIN_PERCENT;
        // Within the margin: the rule's kind, either way round.
        assert!(!rest(1000, 1000 - 10 * m + 1, false));
        assert!(rest(1000 - 10 * m + 1, 1000, true));
        // Beyond it: the other kind.
        assert!(rest(1000, 1000 - 10 * m - 1, false));
        assert!(!rest(1000 - 10 * m - 1, 1000, true));
        // Slower: never.
        assert!(!rest(1000, 2000, false) && rest(2000, 1000, true));
    }

    #[test]
    fn only_the_timed_calls_count_and_each_period_measures_afresh() {
        let probe = StoreProbe::default();
        // Untimed picks are not recorded, whatever they took.
        probe.record(false, Pick { stream: true, timed: false }, Duration::from_nanos(1));
        let picks = period(&probe, false, false, 1000, 500);
        assert!(picks[DECIDED].stream);
        // Next period regular stores are faster: the old best of the streamed ones (500) is forgotten.
        let picks = period(&probe, false, false, 600, 900);
        assert!(picks[0].stream, "the last choice until the next probe");
        assert!(!picks[DECIDED].stream);
    }

    #[test]
    fn one_thread_and_split_calls_are_measured_apart() {
        let probe = StoreProbe::default();
        let one = period(&probe, false, false, 1000, 500);
        let split = period(&probe, true, false, 500, 1000);
        assert!(one[DECIDED].stream && !split[DECIDED].stream);
        assert_eq!((probe.calls(false), probe.calls(true)), (STORE_PROBE_PERIOD, STORE_PROBE_PERIOD));
        // Each keeps its own choice.
        assert!(probe.pick(false, false).stream && !probe.pick(true, false).stream);
    }

    #[test]
    fn a_kind_never_timed_is_not_chosen() {
        let decided = DECIDED as u64;
        // Only the rule's kind was recorded (the other's calls raced elsewhere): keep the rule.
        assert_eq!(decide(decided, false, [1000, u64::MAX]), Pick { stream: false, timed: false });
        // Only the other kind was: it is the only measurement there is.
        assert_eq!(decide(decided, false, [u64::MAX, 1000]), Pick { stream: true, timed: false });
        // Times beyond any realistic call do not overflow the comparison.
        assert_eq!(decide(decided, true, [u64::MAX - 1, u64::MAX]), Pick { stream: true, timed: false });
    }
}
