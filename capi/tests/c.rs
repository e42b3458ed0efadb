//! Takes the `libstrider.so` / `libstrider.a` cargo built for this test, compiles the C and C++ tests and the
//! example with the machine's C and C++ compilers (`CC` / `CXX`, default `cc` / `c++`) against both libraries, runs
//! them, and runs the C test under valgrind's memcheck when valgrind is installed (`STRIDER_REQUIRE_VALGRIND=1`, set
//! by CI, makes its absence a failure).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The crate directory.
fn capi() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The directory holding `libstrider.so` and `libstrider.a`: the one this test executable runs from
/// (`<target>/<profile>/deps/`). The crate's library is also an `rlib`, so cargo builds it, with all three crate types
/// and the features of this very test build, before it builds this test: the C libraries are always this
/// checkout's, and no second `cargo build` (whose feature resolution would differ and recompile the kernels) runs.
fn libdir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let exe = std::env::current_exe().expect("test executable path");
        let dir = exe.parent().expect("<target>/<profile>/deps").to_path_buf();
        for lib in ["libstrider.so", "libstrider.a"] {
            assert!(dir.join(lib).is_file(), "{lib} missing beside the test in {}", dir.display());
        }
        dir
    })
}

/// How a test program links.
#[derive(Clone, Copy, Debug)]
enum Link {
    Shared,
    Static,
}

/// Compiles `source` (C99 or C++11 by extension) with warnings as errors, linked against the library.
fn compile(source: &str, link: Link) -> PathBuf {
    compile_as(source, link, "")
}

/// [`compile`] into a program whose name ends in `suffix`: tests that run in parallel and compile the same source
/// must not write (or run) the same file.
fn compile_as(source: &str, link: Link, suffix: &str) -> PathBuf {
    let lib = libdir();
    let cpp = source.ends_with(".cpp");
    let compiler =
        std::env::var(if cpp { "CXX" } else { "CC" }).unwrap_or_else(|_| (if cpp { "c++" } else { "cc" }).into());
    let stem = Path::new(source).file_stem().and_then(|s| s.to_str()).expect("file name");
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{stem}-{link:?}{suffix}"));
    let mut cmd = Command::new(&compiler);
    cmd.arg(if cpp { "-std=c++11" } else { "-std=c99" })
        .args(["-Wall", "-Wextra", "-Werror", "-pedantic", "-O1", "-g"])
        .arg("-I")
        .arg(capi().join("include"))
        .arg(capi().join(source))
        .arg("-o")
        .arg(&out);
    match link {
        Link::Shared => {
            cmd.arg(format!("-L{}", lib.display())).arg("-lstrider").arg(format!("-Wl,-rpath,{}", lib.display()));
        }
        Link::Static => {
            cmd.arg(lib.join("libstrider.a"));
        }
    }
    cmd.args(["-lpthread", "-ldl", "-lm"]);
    let status = cmd.status().unwrap_or_else(|e| panic!("run {compiler}: {e}"));
    assert!(status.success(), "{compiler} failed on {source} ({link:?})");
    out
}

/// A command that runs `program` against this build's shared library: cargo puts `<target>/<profile>` on
/// `LD_LIBRARY_PATH`, which the dynamic loader searches before the program's run path, and the `libstrider.so` there
/// is whatever the last `cargo build` of the C library left (an older checkout's, after a `cargo test`).
fn test_command(program: &Path) -> Command {
    let mut cmd = Command::new(program);
    let mut path = std::ffi::OsString::from(libdir());
    if let Some(old) = std::env::var_os("LD_LIBRARY_PATH") {
        path.push(":");
        path.push(old);
    }
    cmd.env("LD_LIBRARY_PATH", path);
    cmd
}

/// Runs a compiled program; returns its standard output.
fn run(program: &Path) -> String {
    let output = test_command(program).output().unwrap_or_else(|e| panic!("run {}: {e}", program.display()));
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{} failed:\n{stdout}\n{}",
        program.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

#[test]
fn c_test_shared() {
    assert!(run(&compile("tests/c/capi_test.c", Link::Shared)).contains("C tests passed"));
}

#[test]
fn c_test_static() {
    assert!(run(&compile("tests/c/capi_test.c", Link::Static)).contains("C tests passed"));
}

#[test]
fn cpp_dml_names_shared() {
    assert!(run(&compile("tests/c/dml_names_test.cpp", Link::Shared)).contains("C++ tests passed"));
}

#[test]
fn cpp_dml_names_static() {
    assert!(run(&compile("tests/c/dml_names_test.cpp", Link::Static)).contains("C++ tests passed"));
}

#[test]
fn cpp_movement_shared() {
    assert!(run(&compile("tests/c/dml_movement_test.cpp", Link::Shared)).contains("data-movement tests passed"));
}

#[test]
fn cpp_movement_static() {
    assert!(run(&compile("tests/c/dml_movement_test.cpp", Link::Static)).contains("data-movement tests passed"));
}

#[test]
fn cpp_with_directml_types_first() {
    assert!(run(&compile("tests/c/with_directml_test.cpp", Link::Shared)).contains("tests passed"));
}

#[test]
fn fallback_example_prints_the_spec_results() {
    let out = run(&compile("examples/fallback.c", Link::Shared));
    for expected in [
        "2     4\n      10    12\n",
        "14    16\n       6     8\n",
        "10 11 12 13 | 20 21 22 23 | 30 31 32 33",
        "     0     1     2   127   128   255",
        "TotalTensorSizeInBytes 0",
    ] {
        assert!(out.contains(expected), "{expected:?} missing from:\n{out}");
    }
}

#[test]
fn c_test_under_memcheck() {
    let found = Command::new("valgrind").arg("--version").output().is_ok_and(|o| o.status.success());
    if !found {
        assert!(std::env::var_os("STRIDER_REQUIRE_VALGRIND").is_none(), "valgrind is required but not installed");
        eprintln!("valgrind not installed: memcheck skipped");
        return;
    }
    for source in ["tests/c/capi_test.c", "tests/c/dml_movement_test.cpp"] {
        memcheck(&compile_as(source, Link::Shared, "-memcheck"));
    }
}

/// Runs `program` under memcheck; fails on any error or leak.
fn memcheck(program: &Path) {
    let mut valgrind = test_command(Path::new("valgrind"));
    let output = valgrind
        .args([
            "--error-exitcode=99",
            "--leak-check=full",
            "--errors-for-leak-kinds=definite,indirect",
            "--show-leak-kinds=definite,indirect",
            "--quiet",
        ])
        .arg(program)
        .output()
        .expect("run valgrind");
    assert!(output.status.success(), "memcheck found errors:\n{}", String::from_utf8_lossy(&output.stderr));
}

/// `capi/install.sh` into a temporary prefix (with the libraries this test build made): the files land where the
/// pkg-config file says, and a program compiled with `pkg-config --cflags --libs strider` (or, without pkg-config,
/// the same flags read from the file) against the installed copy runs. A `DESTDIR` stages the same tree elsewhere
/// without changing the paths the file names; a relative prefix is refused.
#[test]
fn install_script_installs_a_usable_library() {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join("install-test");
    let _ = std::fs::remove_dir_all(&tmp);
    let prefix = tmp.join("prefix");
    let script = capi().join("install.sh");
    let install = |args: &[&std::ffi::OsStr], destdir: Option<&Path>| {
        let mut cmd = Command::new("sh");
        cmd.arg(&script).arg("--lib-dir").arg(libdir()).args(args).env_remove("PREFIX").env_remove("DESTDIR");
        if let Some(d) = destdir {
            cmd.env("DESTDIR", d);
        }
        cmd.output().expect("run install.sh")
    };
    let out = install(&["--prefix".as_ref(), prefix.as_os_str()], None);
    assert!(out.status.success(), "install.sh failed:\n{}", String::from_utf8_lossy(&out.stderr));
    for file in ["lib/libstrider.so", "lib/libstrider.a", "include/strider.h", "include/strider_dml.h"] {
        assert!(prefix.join(file).is_file(), "{file} not installed");
    }
    let pc = std::fs::read_to_string(prefix.join("lib/pkgconfig/strider.pc")).expect("strider.pc installed");
    assert!(pc.starts_with(&format!("prefix={}\n", prefix.display())), "{pc}");

    // The flags a user's build gets.
    let flags: Vec<String> = if Command::new("pkg-config").arg("--version").output().is_ok_and(|o| o.status.success()) {
        let out = Command::new("pkg-config")
            .args(["--cflags", "--libs", "strider"])
            .env("PKG_CONFIG_PATH", prefix.join("lib/pkgconfig"))
            .output()
            .expect("run pkg-config");
        assert!(out.status.success(), "pkg-config failed:\n{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).split_whitespace().map(str::to_owned).collect()
    } else {
        assert!(std::env::var_os("STRIDER_REQUIRE_PKG_CONFIG").is_none(), "pkg-config is required but not installed");
        let field = |name: &str| {
            let line = pc.lines().find_map(|l| l.strip_prefix(name)).unwrap_or_else(|| panic!("{name} in {pc}"));
            line.replace("${libdir}", &format!("{}/lib", prefix.display()))
                .replace("${includedir}", &format!("{}/include", prefix.display()))
        };
        [field("Cflags: "), field("Libs: ")].iter().flat_map(|l| l.split_whitespace().map(str::to_owned)).collect()
    };
    let program = tmp.join("fallback");
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let status = Command::new(&compiler)
        .args(["-std=c99", "-Wall", "-Werror"])
        .arg(capi().join("examples/fallback.c"))
        .args(&flags)
        .arg(format!("-Wl,-rpath,{}/lib", prefix.display()))
        .arg("-o")
        .arg(&program)
        .status()
        .expect("run the C compiler");
    assert!(status.success(), "{compiler} failed with the installed flags {flags:?}");
    let out = Command::new(&program).env_remove("LD_LIBRARY_PATH").output().expect("run the installed program");
    assert!(out.status.success() && String::from_utf8_lossy(&out.stdout).contains("10 11 12 13 | 20 21 22 23"));

    // Staged: the same tree under DESTDIR, the .pc naming the final prefix.
    let stage = tmp.join("stage");
    let out = install(&["--prefix".as_ref(), "/opt/strider".as_ref()], Some(&stage));
    assert!(out.status.success(), "staged install failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let pc = std::fs::read_to_string(stage.join("opt/strider/lib/pkgconfig/strider.pc")).expect("staged strider.pc");
    assert!(pc.starts_with("prefix=/opt/strider\n"), "{pc}");
    assert!(stage.join("opt/strider/lib/libstrider.so").is_file());

    let out = install(&["--prefix".as_ref(), "relative/dir".as_ref()], None);
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("absolute path"));
    let out = install(&["--bogus".as_ref()], None);
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("unknown argument '--bogus'"));
}
