#!/usr/bin/env bash
# Release build: man pages and completions into target/release-files/, a static
# x86_64-unknown-linux-musl binary when that target is installed (rustup target add
# x86_64-unknown-linux-musl), and a .deb when cargo-deb is installed (cargo install cargo-deb),
# packaged from [package.metadata.deb] in Cargo.toml. Prints what it built and what it skipped.
set -euo pipefail
cd "$(dirname "$0")/.."

musl=x86_64-unknown-linux-musl
files=target/release-files
rm -rf "$files"
mkdir -p "$files/man" "$files/completions"

cargo build --release --locked
bin=target/release/ssdfade

if rustup target list --installed 2>/dev/null | grep -qx "$musl"; then
    cargo build --release --locked --target "$musl"
    bin=target/$musl/release/ssdfade
    echo "static binary: $bin"
    ldd "$bin" 2>&1 | sed 's/^/  ldd: /' || true
else
    echo "skipped the static binary: the $musl target is not installed (rustup target add $musl)"
fi

"$bin" man --out-dir "$files/man" > /dev/null
gzip -9n "$files"/man/*.1
"$bin" completions bash > "$files/completions/ssdfade"
"$bin" completions zsh > "$files/completions/_ssdfade"
"$bin" completions fish > "$files/completions/ssdfade.fish"
echo "man pages and completions: $files"

if cargo deb --version > /dev/null 2>&1; then
    if [ "$bin" = "target/$musl/release/ssdfade" ]; then
        cargo deb --no-build --target "$musl"
    else
        cargo deb --no-build
    fi
else
    echo "skipped the .deb: cargo-deb is not installed (cargo install cargo-deb)"
fi
