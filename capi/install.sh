#!/bin/sh
# Installs Strider's C library: libstrider.so and libstrider.a (debug info stripped), strider.h and strider_dml.h,
# and a pkg-config file, under a prefix.
#
#   capi/install.sh                      # builds the release library, installs under /usr/local
#   capi/install.sh --prefix "$HOME/.local"
#   PREFIX=/opt/strider DESTDIR=/tmp/pkg capi/install.sh   # staged: files go to $DESTDIR$PREFIX, the .pc names $PREFIX
#   capi/install.sh --lib-dir target/release --prefix /tmp/p  # installs libraries already built, builds nothing
#
# Then: cc app.c $(pkg-config --cflags --libs strider)   (PKG_CONFIG_PATH=<prefix>/lib/pkgconfig outside the
# default search path; a program linked to the shared library finds it at run time through the loader's path, or
# add -Wl,-rpath,<prefix>/lib).
set -eu

usage() {
    sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
}

prefix=${PREFIX:-/usr/local}
from=""
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) [ $# -ge 2 ] || { echo "install.sh: --prefix needs a directory" >&2; exit 2; }; prefix=$2; shift 2 ;;
        --prefix=*) prefix=${1#--prefix=}; shift ;;
        --lib-dir) [ $# -ge 2 ] || { echo "install.sh: --lib-dir needs a directory" >&2; exit 2; }; from=$2; shift 2 ;;
        --lib-dir=*) from=${1#--lib-dir=}; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "install.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
case "$prefix" in
    /*) ;;
    *) echo "install.sh: the prefix must be an absolute path (it is written into strider.pc): '$prefix'" >&2; exit 2 ;;
esac

root=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "$from" ]; then
    (cd "$root" && cargo build --release -p strider-capi)
    from=${CARGO_TARGET_DIR:-$root/target}/release
fi
for lib in libstrider.so libstrider.a; do
    [ -f "$from/$lib" ] || { echo "install.sh: $from/$lib not found" >&2; exit 1; }
done

dest=${DESTDIR:-}$prefix
mkdir -p "$dest/lib/pkgconfig" "$dest/include"
cp "$from/libstrider.so" "$from/libstrider.a" "$dest/lib/"
chmod 755 "$dest/lib/libstrider.so"
chmod 644 "$dest/lib/libstrider.a"
if command -v strip >/dev/null 2>&1; then
    strip --strip-debug "$dest/lib/libstrider.so" "$dest/lib/libstrider.a"
fi
cp "$root/capi/include/strider.h" "$root/capi/include/strider_dml.h" "$dest/include/"
chmod 644 "$dest/include/strider.h" "$dest/include/strider_dml.h"
sed "s|@PREFIX@|$prefix|" "$root/capi/strider.pc.in" > "$dest/lib/pkgconfig/strider.pc"
echo "installed libstrider.so, libstrider.a, strider.h, strider_dml.h and strider.pc under $dest"
