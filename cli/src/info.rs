//! `strider info`: version, instruction sets, threads, and the memcpy bandwidth of this machine right now.

use std::hint::black_box;
use std::time::{Duration, Instant};

use strider::{CacheSizes, Isa};

/// `copy_from_slice` bandwidth (output bytes per second) of `bytes`-sized buffers, measured for about `budget`.
pub fn memcpy_bandwidth(bytes: usize, budget: Duration) -> f64 {
    let (a, mut b) = (vec![1u8; bytes], vec![0u8; bytes]);
    b.copy_from_slice(&a); // fault the pages in
    let mut samples = Vec::new();
    let start = Instant::now();
    while start.elapsed() < budget || samples.len() < 3 {
        let t = Instant::now();
        black_box(&mut b[..]).copy_from_slice(black_box(&a[..]));
        samples.push(t.elapsed().as_secs_f64());
    }
    samples.sort_by(f64::total_cmp);
    bytes as f64 / samples[samples.len() / 2]
}

fn cpu_model() -> Option<String> {
    let text = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("model name"))?;
    Some(line.split_once(':')?.1.trim().to_owned())
}

/// The report printed by `strider info`.
pub fn report() -> String {
    let mut s = String::new();
    s += &format!("strider {}\n", env!("CARGO_PKG_VERSION"));
    if let Some(cpu) = cpu_model() {
        s += &format!("cpu:             {cpu}\n");
    }
    s += &format!("simd level:      {} (selected)\n", Isa::best());
    let levels: Vec<String> = Isa::ALL
        .iter()
        .map(|i| format!("{}{}", i.name(), if i.is_available() { "" } else { " (unavailable)" }))
        .collect();
    s += &format!("levels:          {}\n", levels.join(", "));
    let c = CacheSizes::get();
    let threads = rayon::current_num_threads();
    let mib = |b: usize| b as f64 / (1 << 20) as f64;
    s += &format!(
        "caches:          L1 data {}-way, L2 {:.1} MiB, last level {:.1} MiB shared by {} CPU(s); stores stream from {:.1} \
         MiB footprints ({:.1} MiB split across {} threads; set STRIDER_CACHE=l2=..,l3=..,sharing=..,l1ways=.. to \
         override)\n",
        c.l1d_ways(),
        mib(c.l2()),
        mib(c.llc()),
        c.llc_sharing(),
        mib(c.stream_threshold()),
        mib(c.stream_threshold_for(threads)),
        threads,
    );
    s += &format!("threads:         {threads} (rayon's global pool; set RAYON_NUM_THREADS to change)\n");
    let defaults = strider::ExecOptions::default();
    s += &format!(
        "helpers:         {}; store kinds near the threshold {}\n",
        if defaults.lingers() {
            "poll for the next call up to 1 ms after a split (STRIDER_LINGER=0 turns it off)"
        } else {
            "sleep right after a split (STRIDER_LINGER=0)"
        },
        if defaults.times_stores() {
            "timed (STRIDER_TIMED_STORES=0 keeps the rule's)"
        } else {
            "by the rule (STRIDER_TIMED_STORES=0)"
        },
    );
    for (label, bytes) in [("256 KiB", 256usize << 10), ("64 MiB", 64 << 20)] {
        let bw = memcpy_bandwidth(bytes, Duration::from_millis(500));
        s += &format!("memcpy {label:>7}:  {:.1} GB/s (output bytes, one thread, median over 0.5 s)\n", bw / 1e9);
    }
    s
}
