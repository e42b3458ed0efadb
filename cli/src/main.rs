//! `strider`: slice `.npy` files with DML_SLICE1, benchmark suites against `memcpy`, report the machine.
//!
//! Every failure prints one line naming the problem on stderr and exits with status 2.

mod bench;
mod info;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand};
use strider::Slice1;
use strider_cli::{npy, window};

#[derive(Parser)]
#[command(name = "strider", version, about = "SIMD CPU kernels for DirectML's strided tensors, from the shell")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Copy a window of a .npy tensor into a new packed .npy file (DML_SLICE1).
    Slice1(Slice1Args),
    /// Time a suite of workloads beside a memcpy of the same bytes and print a table.
    Bench(BenchArgs),
    /// Print the version, the SIMD levels, the threads and the memcpy bandwidth of this machine.
    Info,
}

#[derive(Args)]
#[command(
    after_help = "WINDOWS\n  Per dimension: offset, size and a signed non-zero stride; a negative stride copies from the \
window's end. Omitted arguments default to offset 0, the rest of the dimension, stride 1; output sizes default to \
the most elements each window can copy, 1 + (size - 1) / |stride|.\n\n  --slice takes NumPy syntax instead, e.g. \
\"::2, 10:20, ::-1\" (Python's slice.indices rules; a single index keeps its dimension with size 1; '...' once)."
)]
struct Slice1Args {
    /// Input .npy file (any supported dtype, C or Fortran order).
    input: PathBuf,
    /// Output .npy file (packed, C order), written atomically.
    output: PathBuf,
    /// Window offsets, one per dimension (comma-separated).
    #[arg(long, value_delimiter = ',', conflicts_with = "slice")]
    window_offsets: Option<Vec<u32>>,
    /// Window sizes, one per dimension.
    #[arg(long, value_delimiter = ',', conflicts_with = "slice")]
    window_sizes: Option<Vec<u32>>,
    /// Window strides (signed, non-zero), one per dimension.
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true, conflicts_with = "slice")]
    window_strides: Option<Vec<i32>>,
    /// Output sizes, one per dimension (default: the most each window can copy).
    #[arg(long, value_delimiter = ',')]
    output_sizes: Option<Vec<u32>>,
    /// NumPy-style slice instead of the window arguments, e.g. "::2,10:20,::-1".
    #[arg(long, allow_hyphen_values = true)]
    slice: Option<String>,
    /// Print the plan and the time taken.
    #[arg(short, long)]
    verbose: bool,
}

#[derive(Args)]
struct BenchArgs {
    /// "default" (the public workloads plus cache sweeps, embedded) or a JSON file of workloads.
    #[arg(long, default_value = "default")]
    suite: String,
    /// Thread counts to run, comma-separated (default: 1 and all cores).
    #[arg(long, value_delimiter = ',')]
    threads: Option<Vec<usize>>,
    /// Also write the results as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Only the cases whose name contains this text.
    #[arg(long)]
    filter: Option<String>,
    /// Time budget per case and thread count, in seconds.
    #[arg(long, default_value_t = 0.25)]
    seconds: f64,
    /// How to sample: rounds alternating operator and memcpy, or each in its own tight loop as the peer script
    /// does (for side-by-side comparisons with bench/peers.py).
    #[arg(long, value_enum, default_value_t = bench::Method::Interleaved)]
    method: bench::Method,
    /// Non-temporal stores: chosen per case from the cache sizes (auto), or forced on or off.
    #[arg(long, value_enum, default_value_t = bench::Streaming::Auto)]
    streaming: bench::Streaming,
    /// Force an instruction-set level (scalar, v3, v4, v4-vbmi) instead of the best this CPU has.
    #[arg(long, value_parser = parse_isa)]
    isa: Option<strider::Isa>,
}

fn parse_isa(name: &str) -> Result<strider::Isa, String> {
    let isa = strider::Isa::ALL.into_iter().find(|i| i.name() == name);
    let names: Vec<&str> = strider::Isa::ALL.iter().map(|i| i.name()).collect();
    let isa = isa.ok_or_else(|| format!("unknown level {name:?}: expected one of {}", names.join(", ")))?;
    if !isa.is_available() {
        return Err(format!("{isa} is not available on this CPU"));
    }
    Ok(isa)
}

fn slice1(a: Slice1Args) -> Result<()> {
    let t = npy::read(&a.input)?;
    let dims = t.desc.sizes().to_vec();
    let rank = dims.len();
    let w = match &a.slice {
        Some(spec) => window::parse(spec, &dims)?,
        None => {
            let mut w = window::Window::full(&dims);
            for (name, given, len) in [
                ("--window-offsets", a.window_offsets.as_ref().map(Vec::len), rank),
                ("--window-sizes", a.window_sizes.as_ref().map(Vec::len), rank),
                ("--window-strides", a.window_strides.as_ref().map(Vec::len), rank),
            ] {
                if let Some(n) = given
                    && n != len
                {
                    bail!("{name} has {n} values but {} has {rank} dimensions", a.input.display());
                }
            }
            if let Some(o) = &a.window_offsets {
                w.offsets.clone_from(o);
                // default sizes: the rest of each dimension after the offset
                w.sizes = dims.iter().zip(o).map(|(&d, &o)| d.saturating_sub(o)).collect();
            }
            if let Some(s) = &a.window_sizes {
                w.sizes.clone_from(s);
            }
            if let Some(k) = &a.window_strides {
                w.strides.clone_from(k);
            }
            w
        }
    };
    let out_sizes = match a.output_sizes {
        Some(s) if s.len() != rank => {
            bail!("--output-sizes has {} values but {} has {rank} dimensions", s.len(), a.input.display())
        }
        Some(s) => s,
        None => w.max_output_sizes(),
    };
    let out_desc = strider::TensorDesc::new(t.desc.data_type(), &out_sizes).context("invalid output sizes")?;
    let op = Slice1::new(&t.desc, &out_desc, &w.offsets, &w.sizes, &w.strides).context("invalid window")?;
    let mut out = vec![0u8; out_desc.addressed_bytes() as usize];
    let start = Instant::now();
    op.execute(&t.bytes, &mut out)?;
    let took = start.elapsed();
    npy::write(&a.output, out_desc.data_type(), &out_sizes, &out)?;
    if a.verbose {
        eprintln!(
            "{} {:?} -> {:?}: offsets {:?} sizes {:?} strides {:?}; {} ({}); {:.1} µs",
            t.desc.data_type(),
            dims,
            out_sizes,
            w.offsets,
            w.sizes,
            w.strides,
            op.plan(),
            op.row_kind(),
            took.as_secs_f64() * 1e6
        );
    }
    Ok(())
}

fn bench(a: BenchArgs) -> Result<()> {
    let cases = match a.suite.as_str() {
        "default" => bench::default_suite(),
        path => bench::load_suite(std::path::Path::new(path))?,
    };
    let threads = a.threads.unwrap_or_else(|| {
        let all = std::thread::available_parallelism().map_or(1, |n| n.get());
        if all > 1 { vec![1, all] } else { vec![1] }
    });
    if threads.is_empty() || threads.contains(&0) {
        bail!("--threads needs counts of at least 1");
    }
    if !(a.seconds > 0.0 && a.seconds.is_finite()) {
        bail!("--seconds must be a positive number");
    }
    let report = bench::run(
        &cases,
        &bench::Options {
            threads,
            filter: a.filter,
            seconds_per_case: a.seconds,
            method: a.method,
            streaming: a.streaming,
            isa: a.isa,
        },
    )?;
    print!("{}", bench::table(&report));
    if let Some(path) = a.json {
        let text = serde_json::to_string_pretty(&report)?;
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Slice1(a) => slice1(a),
        Command::Bench(a) => bench(a),
        Command::Info => {
            print!("{}", info::report());
            Ok(())
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("strider: error: {e:#}");
            ExitCode::from(2)
        }
    }
}
